// Northwind Outfitters: a small, deterministic static store used by `cargo xtask bench` and by
// Sightline's page-state tests. Every page shares the header (a store-sized mega menu) and the
// footer rendered here, so consecutive pages repeat the same large regions the way real stores do.
// No timers, no randomness, no network beyond this origin: the same URL always renders the same page.
// The basket lives in localStorage, so a fresh browser profile always starts with an empty basket.

'use strict';

const CATEGORIES = {
  outerwear: 'Outerwear',
  knitwear: 'Knitwear',
  footwear: 'Footwear',
};

const PRODUCTS = [
  { id: 'harbour-rain-jacket', category: 'outerwear', name: 'Harbour Rain Jacket', price: 8900, colours: ['Navy', 'Olive', 'Mustard'], sizes: ['XS', 'S', 'M', 'L', 'XL'], blurb: 'A fully seamed, breathable shell for wet coastal days.', details: ['Waterproof to 10,000 mm', 'Taped seams and a peaked hood', 'Two zipped hand pockets', 'Recycled polyester face fabric'] },
  { id: 'summit-down-parka', category: 'outerwear', name: 'Summit Down Parka', price: 19900, colours: ['Black', 'Forest'], sizes: ['S', 'M', 'L', 'XL'], blurb: 'Responsibly sourced down under a windproof shell.', details: ['650-fill down', 'Thigh length', 'Insulated hood with a wired peak'] },
  { id: 'coastal-windbreaker', category: 'outerwear', name: 'Coastal Windbreaker', price: 5500, colours: ['Red', 'Navy'], sizes: ['XS', 'S', 'M', 'L', 'XL'], blurb: 'Packs into its own chest pocket.', details: ['Weighs 180 g', 'Adjustable hem', 'Reflective trims'] },
  { id: 'trail-softshell', category: 'outerwear', name: 'Trail Softshell', price: 7400, colours: ['Grey', 'Olive'], sizes: ['S', 'M', 'L'], blurb: 'Stretchy and quiet for fast hiking.', details: ['Four-way stretch', 'Brushed inner face', 'Napoleon pocket'] },
  { id: 'fell-jumper', category: 'knitwear', name: 'Fell Jumper', price: 6500, colours: ['Oatmeal', 'Charcoal', 'Moss'], sizes: ['XS', 'S', 'M', 'L', 'XL'], blurb: 'Lambswool knitted in a classic crew neck.', details: ['100% lambswool', 'Ribbed cuffs and hem', 'Hand wash cold'] },
  { id: 'cable-knit-cardigan', category: 'knitwear', name: 'Cable Knit Cardigan', price: 7200, colours: ['Cream', 'Navy'], sizes: ['S', 'M', 'L'], blurb: 'Chunky cables and horn buttons.', details: ['Wool blend', 'Two patch pockets', 'Relaxed fit'] },
  { id: 'merino-crew', category: 'knitwear', name: 'Merino Crew', price: 5800, colours: ['Black', 'Teal', 'Burgundy'], sizes: ['XS', 'S', 'M', 'L', 'XL'], blurb: 'Fine-gauge merino for layering.', details: ['Extra-fine merino', 'Machine washable', 'Odour resistant'] },
  { id: 'fisherman-sweater', category: 'knitwear', name: 'Fisherman Sweater', price: 8400, colours: ['Ecru'], sizes: ['M', 'L', 'XL'], blurb: 'A heavy gansey knitted to a traditional pattern.', details: ['Unwashed wool', 'Shoulder buttons', 'Made in Scotland'] },
  { id: 'ridge-walking-boot', category: 'footwear', name: 'Ridge Walking Boot', price: 12900, colours: ['Brown', 'Black'], sizes: ['6', '7', '8', '9', '10', '11'], blurb: 'Waterproof leather boots with a grippy sole.', details: ['Nubuck leather', 'Waterproof membrane', 'Vibram outsole'] },
  { id: 'harbour-deck-shoe', category: 'footwear', name: 'Harbour Deck Shoe', price: 6900, colours: ['Tan', 'Navy'], sizes: ['6', '7', '8', '9', '10'], blurb: 'Hand-stitched moccasin construction.', details: ['Siped rubber sole', 'Leather laces', 'Full-grain leather'] },
];

// The mega menu: six departments, each a dozen links, like a real store's header.
const DEPARTMENTS = [
  ['Women', ['New in', 'Jackets & coats', 'Fleeces', 'Knitwear', 'Shirts & tops', 'Trousers', 'Dresses & skirts', 'Base layers', 'Swimwear', 'Accessories', 'Shop all women']],
  ['Men', ['New in', 'Jackets & coats', 'Fleeces', 'Knitwear', 'Shirts', 'T-shirts', 'Trousers', 'Shorts', 'Base layers', 'Accessories', 'Shop all men']],
  ['Kids', ['New in', 'Girls', 'Boys', 'Baby', 'Waterproofs', 'Wellies', 'School shoes', 'Hats & gloves', 'Backpacks', 'Shop all kids']],
  ['Footwear', ['Walking boots', 'Trail shoes', 'Deck shoes', 'Sandals', 'Wellies', 'Slippers', 'Socks', 'Shoe care', 'Shop all footwear']],
  ['Outdoor gear', ['Tents', 'Sleeping bags', 'Rucksacks', 'Cooking', 'Lights', 'Navigation', 'Water bottles', 'Walking poles', 'First aid', 'Shop all gear']],
  ['Sale', ['Women\u2019s sale', 'Men\u2019s sale', 'Kids\u2019 sale', 'Footwear sale', 'Gear sale', 'Last sizes', 'Under \u00a320', 'Shop all sale']],
];

const FOOTER = [
  ['Help', ['Delivery', 'Returns', 'Order tracking', 'Size guide', 'Contact us', 'Product care']],
  ['About us', ['Our story', 'Sustainability', 'Careers', 'Press', 'Store finder']],
  ['More', ['Gift cards', 'Student discount', 'Refer a friend', 'Repairs service']],
];

const LEGAL = ['Privacy', 'Cookies', 'Terms & conditions', 'Accessibility', 'Sitemap'];

function slug(text) {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

function price(pence) {
  return '\u00a3' + (pence / 100).toFixed(2);
}

function param(name) {
  return new URLSearchParams(location.search).get(name);
}

function product(id) {
  return PRODUCTS.find((p) => p.id === id);
}

// Pages report what really happened to them (`POST /event`), so a test can check the effect of
// a tool independently of what a snapshot says. A server without `/event` simply answers 404.
function report(what) {
  fetch('/event', { method: 'POST', body: what, keepalive: true }).catch(() => {});
}

// ---- the basket ---------------------------------------------------------------------------

const BASKET_KEY = 'northwind.basket';

function readBasket() {
  try {
    return JSON.parse(localStorage.getItem(BASKET_KEY)) || [];
  } catch {
    return [];
  }
}

function writeBasket(lines) {
  localStorage.setItem(BASKET_KEY, JSON.stringify(lines));
  renderBasketCount();
}

function addToBasket(line) {
  const lines = readBasket();
  const same = lines.find((l) => l.id === line.id && l.colour === line.colour && l.size === line.size);
  if (same) same.quantity += line.quantity;
  else lines.push(line);
  writeBasket(lines);
}

function basketCount() {
  return readBasket().reduce((n, l) => n + l.quantity, 0);
}

function basketTotal() {
  return readBasket().reduce((sum, l) => sum + product(l.id).price * l.quantity, 0);
}

function renderBasketCount() {
  const badge = document.getElementById('basket-count');
  if (!badge) return;
  const n = basketCount();
  badge.textContent = n === 1 ? '1 item' : `${n} items`;
}

// ---- shared header and footer -------------------------------------------------------------

function renderHeader() {
  const departments = DEPARTMENTS.map(([name, links]) => `
      <li class="department">
        <a href="category.html?c=${slug(name)}" class="department-link">${escapeHtml(name)}</a>
        <ul class="mega">
          ${links.map((l) => `<li><a href="category.html?c=${slug(name)}-${slug(l)}">${escapeHtml(l)}</a></li>`).join('')}
        </ul>
      </li>`).join('');
  document.getElementById('site-header').innerHTML = `
    <div class="promo">Free delivery on orders over \u00a350 \u2014 <a href="category.html?c=sale">Winter sale now on</a></div>
    <div class="masthead">
      <a href="index.html" class="logo">Northwind Outfitters</a>
      <form role="search" action="category.html" class="search">
        <label for="site-search">Search the store</label>
        <input id="site-search" name="q" type="search" placeholder="Jackets, boots, tents\u2026">
        <button type="submit">Search</button>
      </form>
      <ul class="utility">
        <li><a href="stores.html">Stores</a></li>
        <li><a href="help.html">Help</a></li>
        <li><a href="account.html">Sign in</a></li>
        <li><a href="basket.html" id="basket-link">Basket</a> <span id="basket-count" class="badge">0 items</span></li>
      </ul>
    </div>
    <nav aria-label="Departments" class="departments">
      <ul>${departments}
      </ul>
    </nav>`;
  renderBasketCount();
}

function renderFooter() {
  const columns = FOOTER.map(([title, links]) => `
      <section>
        <h2>${escapeHtml(title)}</h2>
        <ul>${links.map((l) => `<li><a href="help.html#${slug(l)}">${escapeHtml(l)}</a></li>`).join('')}</ul>
      </section>`).join('');
  document.getElementById('site-footer').innerHTML = `
    <div class="footer-columns">${columns}
      <section>
        <h2>Newsletter</h2>
        <form class="newsletter" onsubmit="event.preventDefault(); this.querySelector('output').textContent = 'Thanks for subscribing.';">
          <label for="newsletter-email">Newsletter email</label>
          <input id="newsletter-email" type="email" name="email" autocomplete="off">
          <button type="submit">Subscribe</button>
          <output></output>
        </form>
      </section>
    </div>
    <p class="legal">${LEGAL.map((l) => `<a href="help.html#${slug(l)}">${escapeHtml(l)}</a>`).join(' \u00b7 ')}</p>
    <p class="copyright">\u00a9 2025 Northwind Outfitters Ltd. Registered in England and Wales, company no. 01234567.</p>`;
}

// ---- page bodies ----------------------------------------------------------------------------

function productCard(p) {
  return `
      <li class="card">
        <a href="product.html?p=${p.id}">${escapeHtml(p.name)}</a>
        <p class="price">${price(p.price)}</p>
        <p>${escapeHtml(p.blurb)}</p>
        <p class="colours">${p.colours.length} colours</p>
      </li>`;
}

function renderHome() {
  const featured = ['harbour-rain-jacket', 'fell-jumper', 'ridge-walking-boot', 'summit-down-parka'].map(product);
  document.getElementById('content').innerHTML = `
    <h1>Clothing and kit for wild weather</h1>
    <p class="lede">Independent outfitters since 1974. Everything we sell is tested on the fells above our workshop.</p>
    <section aria-labelledby="shop-by">
      <h2 id="shop-by">Shop by category</h2>
      <ul class="tiles">
        ${Object.entries(CATEGORIES).map(([id, name]) => `<li><a href="category.html?c=${id}">${escapeHtml(name)}</a></li>`).join('')}
      </ul>
    </section>
    <section aria-labelledby="featured">
      <h2 id="featured">Featured this week</h2>
      <ul class="grid">${featured.map(productCard).join('')}
      </ul>
    </section>
    <section aria-labelledby="repairs">
      <h2 id="repairs">Repair, don\u2019t replace</h2>
      <p>Bring any jacket we sold you to a store and we will fix zips, seams and tears for free.</p>
    </section>`;
}

function renderCategory() {
  const id = param('c') || 'outerwear';
  const query = (param('q') || '').trim().toLowerCase();
  const items = query
    ? PRODUCTS.filter((p) => (p.name + ' ' + p.blurb).toLowerCase().includes(query))
    : PRODUCTS.filter((p) => p.category === id);
  const title = query ? `Results for \u201c${param('q').trim()}\u201d` : CATEGORIES[id] || id.split('-').map((w) => w[0].toUpperCase() + w.slice(1)).join(' ');
  document.title = `${title} \u2014 Northwind Outfitters`;
  document.getElementById('content').innerHTML = `
    <nav aria-label="Breadcrumb" class="breadcrumb"><a href="index.html">Home</a> \u203a <span>${escapeHtml(title)}</span></nav>
    <h1>${escapeHtml(title)}</h1>
    <p class="count">${items.length} ${items.length === 1 ? 'product' : 'products'}</p>
    ${items.length
      ? `<ul class="grid">${items.map(productCard).join('')}</ul>`
      : '<p>Nothing here yet. <a href="category.html?c=outerwear">Browse outerwear</a> instead.</p>'}`;
}

function renderProduct() {
  const p = product(param('p')) || PRODUCTS[0];
  document.title = `${p.name} \u2014 Northwind Outfitters`;
  document.getElementById('content').innerHTML = `
    <nav aria-label="Breadcrumb" class="breadcrumb"><a href="index.html">Home</a> \u203a <a href="category.html?c=${p.category}">${CATEGORIES[p.category]}</a> \u203a <span>${escapeHtml(p.name)}</span></nav>
    <h1>${escapeHtml(p.name)}</h1>
    <p class="price">${price(p.price)}</p>
    <p>${escapeHtml(p.blurb)}</p>
    <form id="buy" class="options">
      <fieldset>
        <legend>Colour</legend>
        ${p.colours.map((c, i) => `<label><input type="radio" name="colour" value="${escapeHtml(c)}"${i === 0 ? ' checked' : ''}> ${escapeHtml(c)}</label>`).join('\n        ')}
      </fieldset>
      <label for="size">Size</label>
      <select id="size" name="size" required>
        <option value="">Choose a size</option>
        ${p.sizes.map((s) => `<option>${escapeHtml(s)}</option>`).join('')}
      </select>
      <label for="quantity">Quantity</label>
      <input id="quantity" name="quantity" type="number" min="1" max="9" value="1">
      <button type="submit">Add to basket</button>
      <p id="added" role="status"></p>
    </form>
    <section aria-labelledby="details">
      <h2 id="details">Details</h2>
      <ul>${p.details.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul>
    </section>
    <section aria-labelledby="delivery">
      <h2 id="delivery">Delivery and returns</h2>
      <p>Free delivery on orders over \u00a350. Free returns within 60 days.</p>
    </section>`;
  const form = document.getElementById('buy');
  form.addEventListener('change', () => {
    document.getElementById('added').textContent = '';
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const status = document.getElementById('added');
    const size = form.size.value;
    if (!size) {
      status.textContent = 'Choose a size first.';
      return;
    }
    const line = { id: p.id, colour: form.colour.value, size, quantity: Math.max(1, Number(form.quantity.value) || 1) };
    addToBasket(line);
    status.textContent = `Added ${line.quantity} \u00d7 ${p.name} (${line.colour}, ${line.size}) to your basket.`;
    report(`added:${p.id}|${line.colour}|${line.size}|${line.quantity}`);
  });
}

function renderBasket() {
  const lines = readBasket();
  const rows = lines.map((l, i) => {
    const p = product(l.id);
    return `
        <tr>
          <td><a href="product.html?p=${p.id}">${escapeHtml(p.name)}</a></td>
          <td>${escapeHtml(l.colour)}</td>
          <td>${escapeHtml(l.size)}</td>
          <td>${l.quantity}</td>
          <td>${price(p.price * l.quantity)}</td>
          <td><button type="button" data-line="${i}" aria-label="Remove ${escapeHtml(p.name)}">Remove</button></td>
        </tr>`;
  }).join('');
  document.getElementById('content').innerHTML = `
    <h1>Your basket</h1>
    ${lines.length ? `
    <table>
      <thead><tr><th>Product</th><th>Colour</th><th>Size</th><th>Quantity</th><th>Price</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${rows}
      </tbody>
    </table>
    <p class="total">Total: ${price(basketTotal())}</p>
    <p><a href="checkout.html" class="button">Go to checkout</a></p>` : '<p>Your basket is empty.</p>'}
    <p><a href="index.html">Continue shopping</a></p>`;
  for (const button of document.querySelectorAll('button[data-line]')) {
    button.addEventListener('click', () => {
      const remaining = readBasket();
      remaining.splice(Number(button.dataset.line), 1);
      writeBasket(remaining);
      renderBasket();
    });
  }
}

function renderCheckout() {
  const lines = readBasket();
  document.getElementById('content').innerHTML = `
    <h1>Checkout</h1>
    <p>${basketCount()} items, total ${price(basketTotal())}. <a href="basket.html">Edit basket</a></p>
    <form id="checkout" action="confirmation.html" method="get">
      <fieldset>
        <legend>Your details</legend>
        <label for="name">Full name</label>
        <input id="name" name="name" autocomplete="name" required>
        <label for="email">Email address</label>
        <input id="email" name="email" type="email" autocomplete="email" required>
        <label for="phone">Phone (optional)</label>
        <input id="phone" name="phone" type="tel" autocomplete="tel">
      </fieldset>
      <fieldset>
        <legend>Delivery</legend>
        <label><input type="radio" name="delivery" value="collect" checked> Collect from the Keswick store (free)</label>
        <label><input type="radio" name="delivery" value="home"> Home delivery (\u00a34.95)</label>
        <div id="address" hidden>
          <label for="street">Street address</label>
          <input id="street" name="street" autocomplete="street-address">
          <label for="town">Town</label>
          <input id="town" name="town" autocomplete="address-level2">
          <label for="postcode">Postcode</label>
          <input id="postcode" name="postcode" autocomplete="postal-code">
        </div>
      </fieldset>
      <label><input type="checkbox" name="news"> Send me news and offers</label>
      <button type="submit"${lines.length ? '' : ' disabled'}>Place order</button>
    </form>`;
  const form = document.getElementById('checkout');
  form.addEventListener('change', () => {
    const home = form.delivery.value === 'home';
    document.getElementById('address').hidden = !home;
    for (const id of ['street', 'town', 'postcode']) document.getElementById(id).required = home;
  });
}

function renderConfirmation() {
  const lines = readBasket();
  const name = (param('name') || '').trim();
  const email = (param('email') || '').trim();
  const summary = lines.map((l) => `${l.id}|${l.colour}|${l.size}|${l.quantity}`).join(';');
  // A deterministic order number: the same order always gets the same one.
  let hash = 7;
  for (const ch of summary + email) hash = (hash * 31 + ch.charCodeAt(0)) % 1000000;
  const order = 'NW-' + String(hash).padStart(6, '0');
  document.getElementById('content').innerHTML = lines.length ? `
    <h1>Thank you, ${escapeHtml(name || 'customer')}</h1>
    <p>Your order <strong>${order}</strong> is confirmed. We sent a receipt to ${escapeHtml(email)}.</p>
    <ul>${lines.map((l) => `<li>${l.quantity} \u00d7 ${escapeHtml(product(l.id).name)} (${escapeHtml(l.colour)}, ${escapeHtml(l.size)})</li>`).join('')}</ul>
    <p>Total paid on collection: ${price(basketTotal())}</p>
    <p><a href="index.html">Back to the shop</a></p>` : `
    <h1>No order to confirm</h1>
    <p>Your basket is empty. <a href="index.html">Back to the shop</a></p>`;
  if (lines.length) {
    report(`order:${name}|${email}|${summary}`);
    writeBasket([]);
  }
}

// Order tracking fails in scripted, repeatable ways, so tools that report console errors and
// failed requests can be compared on the same facts: a 404 from the order API, a 503 from the
// status endpoint, a request to a host that does not resolve, a warning, a logged error and an
// unhandled rejection. When all of them have happened the page reports `tracking:done`.
function renderTracking() {
  const order = (param('order') || 'NW-000000').trim();
  document.getElementById('content').innerHTML = `
    <h1>Track your order</h1>
    <p>Order <strong>${escapeHtml(order)}</strong></p>
    <p id="tracking-status" role="status">Looking up your order\u2026</p>
    <p><a href="help.html#contact-us">Contact us</a> if your order is late.</p>`;
  console.warn('Tracking widget: the legacy carrier API is deprecated.');
  const status = document.getElementById('tracking-status');
  const lookups = [
    fetch(`/api/orders/${encodeURIComponent(order)}`).then((r) => {
      if (!r.ok) throw new Error(`order lookup failed with HTTP ${r.status}`);
    }),
    fetch('/status/503').then((r) => {
      if (!r.ok) throw new Error(`carrier status failed with HTTP ${r.status}`);
    }),
    fetch('http://carrier.northwind.invalid/track').then(() => {}),
  ];
  Promise.allSettled(lookups).then((results) => {
    for (const r of results) {
      if (r.status === 'rejected') console.error(`Tracking: ${r.reason.message}`);
    }
    status.textContent = 'We could not look up your order right now. Please try again later.';
    Promise.reject(new Error('tracking widget gave up'));
    report('tracking:done');
  });
}

const PAGES = {
  home: renderHome,
  category: renderCategory,
  product: renderProduct,
  basket: renderBasket,
  checkout: renderCheckout,
  confirmation: renderConfirmation,
  tracking: renderTracking,
};

// Each page calls this from an inline script at the end of <body>: the whole page exists before
// the load event, so nothing appears late.
function renderPage(kind) {
  renderHeader();
  PAGES[kind]();
  renderFooter();
}
