//! Shrinks the JSON Schemas derived from the tool parameter types before they are listed.
//!
//! An agent pays for `tools/list` in every session. The derived schemas say the same thing in
//! more words than needed: `$defs` and `$ref` for tiny enums, `oneOf` lists of constants with
//! a description each, `null` alternatives for optional fields (optional is already said by
//! `required`), integer formats. This rewrites them into the plain equivalent a client
//! validates identically for every argument an agent sends.

use serde_json::{Map, Value};

/// The compact form of `schema`.
pub fn compact(schema: &Map<String, Value>) -> Map<String, Value> {
    let defs = schema.get("$defs").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut out = Value::Object(schema.clone());
    rewrite(&mut out, &defs);
    let Value::Object(mut map) = out else { return Map::new() };
    // The tool's own description already says what the parameter type's doc comment says.
    map.remove("description");
    map
}

/// The compact form of a tool's output schema: [`compact`], with the pipeline's diagnostic
/// `stats` (a dozen counters and timings an agent has no use for, with an all-zero default)
/// described in one line instead of field by field. The values are still sent; a client that
/// wants them reads them as a plain object.
pub fn compact_output(schema: &Map<String, Value>) -> Map<String, Value> {
    let mut map = compact(schema);
    if let Some(Value::Object(properties)) = map.get_mut("properties")
        && properties.contains_key("stats")
    {
        properties.insert(
            "stats".into(),
            serde_json::json!({
                "type": "object",
                "description": "What the pipeline did: nodes kept and dropped by reason, lines, elements, timings in ms."
            }),
        );
    }
    map
}

fn rewrite(value: &mut Value, defs: &Map<String, Value>) {
    let Value::Object(map) = value else {
        if let Value::Array(items) = value {
            items.iter_mut().for_each(|v| rewrite(v, defs));
        }
        return;
    };
    for key in ["$schema", "$defs", "title", "format"] {
        map.remove(key);
    }
    // A scalar default tells an agent what leaving an argument out means; an object default
    // (every field of a struct at zero) tells it nothing.
    if map.get("default").is_some_and(Value::is_object) {
        map.remove("default");
    }
    if map.get("type").and_then(Value::as_str) == Some("integer") || is_nullable_integer(map) {
        map.remove("minimum");
    }
    // {"$ref": "#/$defs/X"} → the definition itself (keeping a local description).
    if let Some(target) =
        map.remove("$ref").and_then(|r| r.as_str().and_then(|r| r.strip_prefix("#/$defs/")).map(str::to_owned))
        && let Some(Value::Object(def)) = defs.get(&target)
    {
        for (k, v) in def {
            map.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    // {"anyOf": [X, {"type": "null"}]} → X.
    if let Some(Value::Array(alternatives)) = map.get("anyOf")
        && alternatives.len() == 2
        && let Some(non_null) = alternatives.iter().find(|a| a.get("type").and_then(Value::as_str) != Some("null"))
        && alternatives.iter().any(|a| a.get("type").and_then(Value::as_str) == Some("null"))
    {
        let non_null = non_null.clone();
        map.remove("anyOf");
        if let Value::Object(inner) = non_null {
            for (k, v) in inner {
                map.entry(k).or_insert(v);
            }
        }
        return rewrite(value, defs);
    }
    // "type": ["string", "null"] → "string".
    if let Some(Value::Array(types)) = map.get("type") {
        let kept: Vec<Value> = types.iter().filter(|t| t.as_str() != Some("null")).cloned().collect();
        if kept.len() == 1 {
            map.insert("type".into(), kept[0].clone());
            if kept[0] == "integer" {
                map.remove("minimum");
            }
        }
    }
    // {"oneOf": [{"const": "a"}, {"const": "b"}]} → {"enum": ["a", "b"]}.
    if let Some(Value::Array(variants)) = map.get("oneOf")
        && variants.iter().all(|v| v.get("const").is_some())
    {
        let constants: Vec<Value> = variants.iter().filter_map(|v| v.get("const").cloned()).collect();
        let ty = variants.first().and_then(|v| v.get("type").cloned());
        map.remove("oneOf");
        map.insert("enum".into(), Value::Array(constants));
        if let Some(ty) = ty {
            map.insert("type".into(), ty);
        }
    }
    for v in map.values_mut() {
        rewrite(v, defs);
    }
}

fn is_nullable_integer(map: &Map<String, Value>) -> bool {
    map.get("type").and_then(Value::as_array).is_some_and(|t| t.iter().any(|x| x == "integer"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use sightline_core::protocol::{ClickParams, SnapshotFacts};

    #[test]
    fn the_snapshot_output_schema_says_stats_in_one_line() {
        let derived = schemars::schema_for!(SnapshotFacts);
        let compacted = Value::Object(compact_output(derived.as_object().unwrap()));
        let stats = &compacted["properties"]["stats"];
        assert_eq!(stats["type"], "object");
        assert!(stats.get("properties").is_none() && stats.get("default").is_none(), "{stats}");
        assert!(compacted["properties"]["elements"]["items"]["properties"]["ref"].is_object(), "{compacted}");
    }

    #[test]
    fn click_parameters_compact_to_plain_json_schema() {
        let derived = schemars::schema_for!(ClickParams);
        let compacted = compact(derived.as_object().unwrap());
        assert_eq!(
            Value::Object(compacted),
            json!({
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "ref": {"type": "string", "description": "Element ref from the snapshot, e.g. `e12`."},
                    "double": {"type": "boolean", "description": "Double click."},
                    "button": {"type": "string", "enum": ["left", "right", "middle"], "description": "Mouse button (default left)."},
                    "since_version": {"type": "integer", "description": "The version (`vN`) your refs come from; if the page changed since, you are told what."},
                    "tab": {"type": "integer", "description": "Tab id (default: current tab)."}
                },
                "required": ["ref"]
            })
        );
    }
}
