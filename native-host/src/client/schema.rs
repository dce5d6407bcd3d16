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

/// The compact form of an output schema: as [`compact`], and without what only an argument
/// needs or a machine reading the result does not: defaults, descriptions below the result's
/// own fields (a nested field's name says enough there), and the field lists of objects nested
/// in the result (figures such as a snapshot's `stats`, declared as an object with its
/// description; the items of a list keep theirs).
pub fn compact_output(schema: &Map<String, Value>) -> Map<String, Value> {
    let mut map = compact(schema);
    strip_defaults(&mut map);
    if let Some(Value::Object(fields)) = map.get_mut("properties") {
        for field in fields.values_mut() {
            strip_descriptions_below(field);
            // The agent reads what a field means in the text answer; a program needs its type.
            if let Value::Object(field) = field {
                field.remove("description");
            }
            if let Value::Object(field) = field
                && field.get("type").and_then(Value::as_str) == Some("object")
                && field.remove("properties").is_some()
            {
                field.remove("required");
            }
        }
    }
    map
}

fn strip_defaults(map: &mut Map<String, Value>) {
    map.remove("default");
    for value in map.values_mut() {
        match value {
            Value::Object(inner) => strip_defaults(inner),
            Value::Array(items) => items.iter_mut().filter_map(Value::as_object_mut).for_each(strip_defaults),
            _ => {}
        }
    }
}

/// Removes the descriptions of everything inside `field`, keeping its own.
fn strip_descriptions_below(field: &mut Value) {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                map.remove("description");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    if let Value::Object(map) = field {
        for (key, value) in map.iter_mut() {
            if key != "description" {
                strip(value);
            }
        }
    }
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
    // The items of a described list: the list's description says what they are.
    if map.contains_key("description")
        && let Some(Value::Object(items)) = map.get_mut("items")
    {
        items.remove("description");
    }
    for v in map.values_mut() {
        rewrite(v, defs);
    }
    // Unknown arguments are refused by name when the call is read; saying so in every
    // schema costs each session a hundred tokens.
    if map.get("additionalProperties") == Some(&Value::Bool(false)) {
        map.remove("additionalProperties");
    }
    // What one item of a list is, the list's own description already says.
    if let Some(Value::Object(items)) = map.get_mut("items") {
        items.remove("description");
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
    fn every_declared_tool_lists_plain_object_schemas() {
        for tool in crate::client::mcp::SightlineMcp::default().declared_tools() {
            let input = serde_json::to_string(&tool.input_schema).unwrap();
            assert_eq!(tool.input_schema.get("type"), Some(&json!("object")), "{}: {input}", tool.name);
            for leftover in ["$ref", "$defs", "$schema", "additionalProperties", "\"title\""] {
                assert!(!input.contains(leftover), "{}: {leftover} in {input}", tool.name);
            }
            if let Some(output) = &tool.output_schema {
                assert_eq!(output.get("type"), Some(&json!("object")), "{}: {output:?}", tool.name);
                assert!(output.get("properties").is_some_and(Value::is_object), "{}: {output:?}", tool.name);
            }
        }
    }

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
    fn output_schemas_keep_field_types_without_descriptions_defaults_or_nested_field_lists() {
        let compacted = compact_output(
            json!({
                "type": "object",
                "properties": {
                    "stats": {"type": "object", "description": "What the pipeline did.", "default": {"n": 0},
                              "properties": {"n": {"type": "integer", "description": "Nodes."}}, "required": ["n"]},
                    "items": {"type": "array", "description": "Items.",
                              "items": {"type": "object", "description": "One item.",
                                        "properties": {"ref": {"type": "string", "description": "Its ref."}}}}
                }
            })
            .as_object()
            .unwrap(),
        );
        assert_eq!(
            Value::Object(compacted),
            json!({
                "type": "object",
                "properties": {
                    "stats": {"type": "object"},
                    "items": {"type": "array", "items": {"type": "object", "properties": {"ref": {"type": "string"}}}}
                }
            })
        );
    }

    #[test]
    fn click_parameters_compact_to_plain_json_schema() {
        let derived = schemars::schema_for!(ClickParams);
        let compacted = compact(derived.as_object().unwrap());
        assert_eq!(
            Value::Object(compacted),
            json!({
                "type": "object",
                "properties": {
                    "ref": {"type": "string", "description": "Element ref from the snapshot, e.g. `e12`."},
                    "double": {"type": "boolean", "description": "Double click."},
                    "button": {"type": "string", "enum": ["left", "right", "middle"], "description": "Mouse button (default left)."},
                    "since_version": {"type": "integer", "description": "Version (`vN`) your refs are from."},
                    "tab": {"type": "integer", "description": "Tab id."}
                },
                "required": ["ref"]
            })
        );
    }
}
