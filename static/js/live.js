// Brag Tables: what a watcher sees of the polling. "live · updated 3 s ago" while the polls
// (or the tap queue's answers) come back, "offline · last contact 21:14" when they do not;
// the result card that a tap hides; and the crowning moment on the TV and a spectator's
// page. The page works without it (it then refreshes itself and shows the latest result);
// app.js does the polling's ETags.
(function () {
  "use strict";
  var DISMISSED = "brag-dismissed-results";
  var box = document.getElementById("live-status");
  var text = box ? box.querySelector(".live-text") : null;
  var poll = box ? parseInt(box.getAttribute("data-poll"), 10) || 3 : 3;
  var root = document.documentElement;

  function attributeTime(element, name) {
    var value = element ? parseInt(element.getAttribute(name), 10) : NaN;
    return isNaN(value) ? null : value;
  }

  // The last contact with the server (ms), and whether the last poll or answer succeeded.
  // A page the network just brought is a contact; a copy the service worker kept (sw.js) is
  // not: it is offline from the start, its last contact when its board was received.
  var keptCopy = root.hasAttribute("data-kept-copy");
  var last = Date.now();
  var ok = !keptCopy;
  if (keptCopy) {
    last = attributeTime(root, "data-kept-at") || attributeTime(box, "data-rendered-at") || last;
  }

  function clock(ms) {
    var lang = root.getAttribute("lang") || undefined;
    try {
      return new Date(ms).toLocaleTimeString(lang, { hour: "2-digit", minute: "2-digit" });
    } catch (error) {
      return new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    }
  }

  // The stream's state (stream.js): null while the page polls.
  var stream = null;
  // Seconds without a word from the stream before it counts as lost: a heartbeat is due
  // every data-stream-heartbeat seconds (30), and a busy phone may lag.
  var streamed = document.querySelector("[data-stream]");
  var STREAM_SILENCE = (parseInt(streamed && streamed.getAttribute("data-stream-heartbeat"), 10) || 30) + 12;

  // A page whose main part was fetched afresh (app.js, after a close or a reopen) has a new
  // status line, or none.
  function rebind() {
    box = document.getElementById("live-status");
    text = box ? box.querySelector(".live-text") : null;
    if (box) {
      box.hidden = false;
    }
  }

  function render() {
    if (!box || !document.body.contains(box)) {
      rebind();
    }
    if (!box) {
      return;
    }
    var seconds = Math.max(0, Math.round((Date.now() - last) / 1000));
    var online = navigator.onLine !== false;
    if (stream === "live" || stream === "reconnecting") {
      var heard = stream === "live" && online && seconds <= STREAM_SILENCE;
      // Reconnecting a while is a blip; longer, or with no network, the page is offline.
      var blip = stream === "reconnecting" && online && seconds <= STREAM_SILENCE;
      box.classList.toggle("is-lost", !heard && !blip);
      box.classList.toggle("is-reconnecting", blip);
      if (heard) {
        text.textContent = box.getAttribute("data-live-now");
      } else if (blip) {
        text.textContent = box.getAttribute("data-reconnecting");
      } else {
        text.textContent = box.getAttribute("data-offline").replace("{time}", clock(last));
      }
      return;
    }
    box.classList.remove("is-reconnecting");
    // "live" only when the last poll or answer succeeded, the browser has a network, and
    // one came lately: three missed polls count as offline even without an error (a dead
    // wifi may say nothing; the tap queue holds the polls back only while it sends).
    var live = ok && navigator.onLine !== false && seconds <= poll * 3 + 2;
    box.classList.toggle("is-lost", !live);
    if (!live) {
      text.textContent = box.getAttribute("data-offline").replace("{time}", clock(last));
    } else if (seconds < 1) {
      text.textContent = box.getAttribute("data-live-now");
    } else {
      text.textContent = box.getAttribute("data-live").replace("{seconds}", seconds);
    }
  }

  function contact(succeeded, at) {
    ok = succeeded;
    if (succeeded) {
      last = at || Date.now();
    } else if (at) {
      last = at; // tap-queue.js names when its kept board was received
    }
    render();
  }

  function dismissed() {
    try {
      return JSON.parse(sessionStorage.getItem(DISMISSED) || "[]");
    } catch (error) {
      return [];
    }
  }

  function hideDismissedCards() {
    var card = document.getElementById("result-card");
    if (!card) {
      return;
    }
    if (dismissed().indexOf(card.getAttribute("data-result")) !== -1) {
      card.hidden = true;
      return;
    }
    var hide = card.querySelector(".result-hide");
    if (hide) {
      hide.hidden = false; // the keyboard's way to do what a tap on the card does
    }
  }

  document.addEventListener("htmx:afterRequest", function (event) {
    var xhr = event.detail.xhr;
    contact(Boolean(xhr && ((xhr.status >= 200 && xhr.status < 300) || xhr.status === 304)));
  });
  document.addEventListener("htmx:sendError", function () {
    contact(false);
  });
  // tap-queue.js after each of its fetches: {ok: the server answered with the app's answer,
  // at: when (ms; optional)}.
  document.addEventListener("brag:contact", function (event) {
    var detail = event.detail || {};
    contact(Boolean(detail.ok), typeof detail.at === "number" ? detail.at : null);
  });
  document.addEventListener("brag:stream", function (event) {
    var state = event.detail && event.detail.state;
    stream = state === "live" || state === "reconnecting" ? state : null;
    render();
  });
  window.addEventListener("offline", render);
  window.addEventListener("online", render);
  document.addEventListener("htmx:afterSwap", hideDismissedCards);

  document.addEventListener("click", function (event) {
    var card = event.target.closest ? event.target.closest("#result-card") : null;
    if (!card || (event.target.closest("a") && !event.target.closest(".result-hide"))) {
      return;
    }
    if (document.documentElement.hasAttribute("data-settling")) {
      return; // the second tap of the double tap that crowned: the card is the news
    }
    var seen = dismissed();
    seen.push(card.getAttribute("data-result"));
    try {
      sessionStorage.setItem(DISMISSED, JSON.stringify(seen.slice(-20)));
    } catch (error) {
      // private browsing without storage: the card still hides until the next swap
    }
    card.hidden = true;
  });

  // The crowning moment. Each fragment carries the latest filed match (#crowning, hidden,
  // with its filing time). When a poll brings one filed after every crowning this page has
  // seen, a copy of it is shown over the page for the #live element's data-moment-seconds,
  // outside #live so that the next polls do not take it away. The one the page opened with
  // is old news, and an undone crowning brings back an older one: neither is a moment.
  var MOMENT_ID = "crowning-moment";
  var seenAt = crownedAt(document.getElementById("crowning"));
  var momentTimer = null;

  function crownedAt(element) {
    var at = element ? parseInt(element.getAttribute("data-crowned-at"), 10) : NaN;
    return isNaN(at) ? 0 : at; // 0: nothing filed at this table yet
  }

  function endMoment() {
    var shown = document.getElementById(MOMENT_ID);
    if (shown) {
      shown.parentNode.removeChild(shown);
    }
    clearTimeout(momentTimer);
    momentTimer = null;
  }

  function showMoment(source) {
    var live = document.getElementById("live");
    var seconds = parseFloat(live && live.getAttribute("data-moment-seconds"));
    endMoment();
    var moment = source.cloneNode(true);
    moment.id = MOMENT_ID;
    moment.removeAttribute("hidden");
    moment.classList.add("is-shown");
    moment.setAttribute("role", "status");
    document.body.appendChild(moment);
    momentTimer = setTimeout(endMoment, (isNaN(seconds) ? 10 : seconds) * 1000);
  }

  var shownAt = 0; // the filing time of the moment on screen

  document.addEventListener("htmx:afterSwap", function () {
    var latest = document.getElementById("crowning");
    if (!latest) {
      return; // the host's board: the result card is the host's news
    }
    var at = crownedAt(latest);
    if (at > seenAt && latest.querySelector(".crowning-card")) {
      showMoment(latest);
      shownAt = at;
    } else if (momentTimer !== null && at < shownAt) {
      // The crowning on screen was undone: the room must not see a winner who did not win.
      endMoment();
    }
    seenAt = Math.max(seenAt, at);
  });
  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest("#" + MOMENT_ID)) {
      endMoment(); // a spectator's tap puts the board back at once
    }
  });

  if (box) {
    box.hidden = false;
    setInterval(render, 1000);
    render();
  }
  hideDismissedCards();
})();
