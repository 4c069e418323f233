// Brag Tables service worker, version {{ version }}. Served by a view (matches/web/views/offline.py)
// with Cache-Control: no-cache: a deployment that changes any shell file or template changes
// this version, so the browser installs the new worker, which deletes the old caches.
// - the app shell (styles, scripts, htmx, icons, manifest) is cached at install;
// - static files: cache first when their names carry a hash (immutable), else network first;
// - a table page: network first, its last copy when the network is down, so a cold reload
//   offline shows the table and the taps waiting in the queue (kept in localStorage). A copy
//   served so says so: <html data-kept-copy data-kept-at="ms">.
// Messages from the pages (static/js/app.js):
// - {type: "keep", url: "/tables/<id>/", onLoad: bool (optional)}: fetch that page now and
//   keep it. A host plays the
//   whole night through fetch and htmx, which the worker never sees as navigations, and the
//   page launched by a form's redirect was not fetched by the worker at all;
// - {type: "forget-pages"}: the login is gone: every kept page goes (they are a host's).
"use strict";
const VERSION = "{{ version }}";
const SHELL = "brag-shell-" + VERSION;
const PAGES = "brag-pages-" + VERSION;
const PAGES_PREFIX = "brag-pages-";
const SHELL_URLS = {{ shell|safe }};
const STATIC_PREFIX = {{ static_prefix|safe }};
const HASHED = {{ hashed|safe }};
const TABLE_PAGE = /^\/tables\/\d+\/$/;
// A page just kept from its navigation needs no second fetch for the page's load message.
const FRESH_MS = 5000;
const keptAt = new Map();
const keeping = new Map();
// Moved on by forget-pages: a keep under way when the login went must not put its page back.
let generation = 0;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(SHELL).then((cache) => cache.addAll(SHELL_URLS)).then(() => self.skipWaiting())
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(
        keys.filter((key) => key.startsWith("brag-") && key !== SHELL && key !== PAGES)
          .map((key) => caches.delete(key))
      ))
      .then(() => self.clients.claim())
  );
});

// A kept page served in place of the network's: the page's scripts must know (tap-queue.js
// and live.js read data-kept-copy; data-kept-at is when the server sent it).
async function asKeptCopy(response) {
  const html = await response.text();
  const sent = Date.parse(response.headers.get("Date") || "");
  const at = Number.isNaN(sent) ? "" : ' data-kept-at="' + sent + '"';
  const marked = html.replace(/<html(\s|>)/i, (match, next) => "<html data-kept-copy" + at + next);
  const headers = new Headers(response.headers);
  headers.delete("Content-Length");
  return new Response(marked, { status: response.status, statusText: response.statusText, headers });
}

async function fromNetwork(request, cacheName, key) {
  const cache = await caches.open(cacheName);
  const gen = generation;
  try {
    const response = await fetch(request);
    if (response.ok && response.type === "basic") {
      await cache.put(key, response.clone());
      if (cacheName === PAGES) {
        keptAt.set(key, Date.now());
        if (gen !== generation) {
          await forgetPages();
        }
      }
    }
    return response;
  } catch (error) {
    const cached = (await cache.match(key, { ignoreVary: true })) ||
      (await caches.match(key, { ignoreVary: true }));
    if (cached) {
      return request.mode === "navigate" ? asKeptCopy(cached) : cached;
    }
    throw error;
  }
}

async function fromCache(request) {
  const cached = await caches.match(request, { ignoreVary: true });
  return cached || fromNetwork(request, SHELL, request);
}

// The page as a navigation would get it now (the tablet's cookies, no HX-Request: the whole
// page), kept under its path. onLoad: the page has just loaded; if this worker kept it from
// that very navigation, it needs no second fetch.
async function keep(path, onLoad) {
  const fresh = keptAt.get(path);
  if (onLoad && fresh !== undefined && Date.now() - fresh < FRESH_MS) {
    return;
  }
  const gen = generation;
  let response;
  try {
    response = await fetch(path, { credentials: "same-origin", cache: "no-store", redirect: "follow" });
  } catch (error) {
    return; // offline: the copy kept stays
  }
  if (!response.ok || response.redirected || response.type !== "basic" || gen !== generation) {
    return;
  }
  const cache = await caches.open(PAGES);
  await cache.put(path, response);
  if (gen !== generation) {
    await forgetPages(); // the login went while this was being kept
  }
}

async function forgetPages() {
  generation += 1;
  keptAt.clear();
  const keys = await caches.keys();
  await Promise.all(keys.filter((key) => key.startsWith(PAGES_PREFIX)).map((key) => caches.delete(key)));
}

self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (event.origin && event.origin !== self.location.origin) {
    return;
  }
  if (data.type === "keep" && typeof data.url === "string" && TABLE_PAGE.test(data.url)) {
    // One keep at a time per page: an older answer must not land over a newer one.
    const path = data.url;
    const done = (keeping.get(path) || Promise.resolve()).then(() => keep(path, data.onLoad === true));
    const settled = done.catch(() => {});
    keeping.set(path, settled);
    settled.then(() => {
      if (keeping.get(path) === settled) {
        keeping.delete(path);
      }
    });
    event.waitUntil(settled);
  } else if (data.type === "forget-pages") {
    event.waitUntil(forgetPages());
  }
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") {
    return;
  }
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) {
    return;
  }
  if (request.mode === "navigate" && TABLE_PAGE.test(url.pathname)) {
    // Keyed by path: the page as last seen, whatever its query.
    event.respondWith(fromNetwork(request, PAGES, url.pathname));
  } else if (url.pathname.startsWith(STATIC_PREFIX) || SHELL_URLS.includes(url.pathname)) {
    event.respondWith(HASHED ? fromCache(request) : fromNetwork(request, SHELL, request));
  }
});
