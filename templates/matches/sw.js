// Brag Tables service worker, version {{ version }}. Served by a view (matches/web/views/offline.py)
// with Cache-Control: no-cache: a deployment that changes any shell file changes this
// version, so the browser installs the new worker, which deletes the old caches.
// - the app shell (styles, scripts, htmx, icons, manifest) is cached at install;
// - static files: cache first when their names carry a hash (immutable), else network first;
// - a table page: network first, its last copy when the network is down, so a cold reload
//   offline shows the table and the taps waiting in the queue (kept in localStorage).
"use strict";
const VERSION = "{{ version }}";
const SHELL = "brag-shell-" + VERSION;
const PAGES = "brag-pages-" + VERSION;
const SHELL_URLS = {{ shell|safe }};
const STATIC_PREFIX = {{ static_prefix|safe }};
const HASHED = {{ hashed|safe }};
const TABLE_PAGE = /^\/tables\/\d+\/$/;

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

async function fromNetwork(request, cacheName, key) {
  const cache = await caches.open(cacheName);
  try {
    const response = await fetch(request);
    if (response.ok && response.type === "basic") {
      await cache.put(key, response.clone());
    }
    return response;
  } catch (error) {
    const cached = (await cache.match(key, { ignoreVary: true })) ||
      (await caches.match(key, { ignoreVary: true }));
    if (cached) {
      return cached;
    }
    throw error;
  }
}

async function fromCache(request) {
  const cached = await caches.match(request, { ignoreVary: true });
  return cached || fromNetwork(request, SHELL, request);
}

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
