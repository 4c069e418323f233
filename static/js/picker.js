// The showdown judge's card grid. Choose a player (their "Pick" button, or their cards box),
// then tap cards: a hand takes at most three, then the next player's hand is chosen; a card
// in another hand is greyed out; a tap on a card of the chosen hand takes it back. The text
// box is never focused for you, so no keyboard pops up on a tablet. Typing still works, and
// the page works without this script.
(function () {
  "use strict";
  var grid = document.querySelector(".card-grid");
  if (!grid) {
    return;
  }
  var portuguese = (document.documentElement.lang || "").indexOf("pt") === 0;
  var inputs = Array.prototype.slice.call(document.querySelectorAll(".hand-input"));
  var picks = Array.prototype.slice.call(document.querySelectorAll(".hand-pick"));
  var buttons = Array.prototype.slice.call(grid.querySelectorAll(".card-button"));
  var SUITS = { S: "S", H: "H", D: "D", C: "C", "♠": "S", "♥": "H", "♦": "D", "♣": "C",
                "♤": "S", "♡": "H", "♢": "D", "♧": "C" };
  var PT_SUITS = { E: "S", C: "H", O: "D", P: "C" };
  var PT_RANKS = { V: "J", D: "Q", R: "K" };
  var active = 0;

  function tokens(input) {
    return input.value.trim().split(/[\s,;]+/).filter(Boolean);
  }

  // "pt" or "en" when a token's letters say which notation it is in (as hands.py decides).
  function notation(token) {
    var m = /^(10|[2-9TJQKAVDR])(.)$/i.exec(token.toUpperCase());
    if (!m) {
      return null;
    }
    if (PT_RANKS[m[1]] || "EOP".indexOf(m[2]) !== -1) {
      return "pt";
    }
    return /^[TJQK]$/.test(m[1]) || "SHD".indexOf(m[2]) !== -1 ? "en" : null;
  }

  // The grid's code ("QS", "10H") for what was typed, read as the server reads it.
  function code(token, englishHand) {
    var m = /^(10|[2-9TJQKAVDR])(.)$/i.exec(token.toUpperCase());
    if (!m) {
      return null;
    }
    var rank = m[1] === "T" ? "10" : m[1];
    var suit = m[2];
    if (PT_RANKS[rank]) {
      if (!portuguese) {
        return null;
      }
      rank = PT_RANKS[rank];
    }
    if (portuguese && PT_SUITS[suit] && !(suit === "C" && englishHand)) {
      suit = PT_SUITS[suit];
    } else {
      suit = SUITS[suit];
    }
    return suit ? rank + suit : null;
  }

  function codes(input) {
    var typed = tokens(input);
    var seen = typed.map(notation).filter(Boolean);
    // In Portuguese a C is copas unless every lettered card of the hand is English.
    var english = seen.length > 0 && seen.every(function (n) {
      return n === "en";
    });
    return typed.map(function (t) {
      return code(t, english);
    });
  }

  function render() {
    var owner = {};
    inputs.forEach(function (input, index) {
      codes(input).forEach(function (c) {
        if (c) {
          owner[c] = index;
        }
      });
    });
    var full = codes(inputs[active]).length >= 3;
    buttons.forEach(function (button) {
      var c = button.getAttribute("data-card");
      var mine = owner[c] === active;
      var elsewhere = owner[c] !== undefined && !mine;
      button.setAttribute("aria-pressed", mine ? "true" : "false");
      button.classList.toggle("is-picked", mine);
      button.classList.toggle("is-used", elsewhere);
      button.disabled = elsewhere || (full && !mine);
    });
    picks.forEach(function (pick, index) {
      pick.setAttribute("aria-pressed", index === active ? "true" : "false");
      pick.closest("tr").classList.toggle("is-active", index === active);
    });
  }

  function advance() {
    for (var step = 1; step <= inputs.length; step += 1) {
      var next = (active + step) % inputs.length;
      if (codes(inputs[next]).length < 3) {
        active = next;
        return;
      }
    }
  }

  grid.addEventListener("click", function (event) {
    var button = event.target.closest(".card-button");
    if (!button || button.disabled) {
      return;
    }
    var input = inputs[active];
    var target = button.getAttribute("data-card");
    var typed = tokens(input);
    var current = codes(input);
    var at = current.indexOf(target);
    if (at !== -1) {
      typed.splice(at, 1); // a tap on a picked card takes it back
    } else if (current.length < 3) {
      typed.push(button.getAttribute("data-label"));
    }
    input.value = typed.join(" ");
    if (at === -1 && typed.length >= 3) {
      advance();
    }
    render();
  });

  picks.forEach(function (pick, index) {
    pick.hidden = false;
    pick.addEventListener("click", function () {
      active = index;
      render();
    });
  });
  inputs.forEach(function (input, index) {
    input.addEventListener("focus", function () {
      active = index;
      render();
    });
    input.addEventListener("input", render);
  });

  // Start on the first hand that still needs cards.
  active = Math.max(0, inputs.findIndex(function (input) {
    return codes(input).length < 3;
  }));
  grid.hidden = false;
  render();
})();
