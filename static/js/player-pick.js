// The player picker of the merge form: the seat picker's search (static/js/seats.js), for one
// name. Typing a few letters offers the league's players (the server folds case, accents and
// width); a tap or Enter on one puts its name in the box. Without this script the box is a
// plain text box with the page's list of names.
(function () {
  "use strict";
  var input = document.querySelector("input[data-player-pick]");
  if (!input) {
    return;
  }
  var searchUrl = input.getAttribute("data-player-pick");
  var listbox = document.createElement("ul");
  listbox.id = input.id + "-options";
  listbox.className = "seat-options";
  listbox.setAttribute("role", "listbox");
  // Named apart from the box, so the box's label names only the box.
  listbox.setAttribute("aria-label", input.getAttribute("data-player-pick-options") || "");
  listbox.hidden = true;
  var wrap = document.createElement("div");
  wrap.className = "seat-find";
  // Moving the box takes the focus from it: a host already typing keeps typing into it.
  var typing = document.activeElement === input;
  input.parentNode.insertBefore(wrap, input);
  wrap.appendChild(input);
  if (typing) {
    input.focus();
  }
  wrap.appendChild(listbox);
  input.removeAttribute("list");
  input.setAttribute("role", "combobox");
  input.setAttribute("aria-autocomplete", "list");
  input.setAttribute("aria-expanded", "false");
  input.setAttribute("aria-controls", listbox.id);
  var names = [];
  var active = -1;
  var asked = 0;
  var timer = null;

  function close() {
    names = [];
    listbox.hidden = true;
    listbox.textContent = "";
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  }

  function choose(name) {
    input.value = name;
    close();
  }

  function highlight(index) {
    active = index;
    Array.prototype.forEach.call(listbox.children, function (item, i) {
      item.setAttribute("aria-selected", i === index ? "true" : "false");
    });
    var item = listbox.children[index];
    if (item) {
      input.setAttribute("aria-activedescendant", item.id);
      item.scrollIntoView({ block: "nearest" });
    }
  }

  function show(found) {
    close();
    names = found;
    found.forEach(function (name, index) {
      var item = document.createElement("li");
      item.id = listbox.id + "-" + index;
      item.setAttribute("role", "option");
      item.setAttribute("aria-selected", "false");
      item.className = "seat-option";
      item.textContent = name;
      item.addEventListener("mousedown", function (event) {
        event.preventDefault(); // keep the keyboard up on a tablet
      });
      item.addEventListener("click", function () {
        choose(name);
      });
      listbox.appendChild(item);
    });
    listbox.hidden = found.length === 0;
    input.setAttribute("aria-expanded", found.length ? "true" : "false");
  }

  input.addEventListener("input", function () {
    var typed = input.value.trim().split(/\s+/).join(" ");
    window.clearTimeout(timer);
    if (!typed) {
      close();
      return;
    }
    var mine = ++asked;
    timer = window.setTimeout(function () {
      fetch(searchUrl + "?q=" + encodeURIComponent(typed), {
        credentials: "same-origin",
        headers: { Accept: "application/json" },
      }).then(function (response) {
        return response.ok ? response.json() : { players: [] };
      }).then(function (answer) {
        var found = (answer.players || []).map(function (p) {
          return p.name;
        });
        // A name typed whole needs no list over the form's buttons.
        var whole = found.length === 1 && found[0].toLowerCase() === typed.toLowerCase();
        if (mine === asked) {
          show(whole ? [] : found);
        }
      }).catch(function () {
        // Offline or refused: the box takes a typed name as before.
      });
    }, 120);
  });
  input.addEventListener("keydown", function (event) {
    if (event.key === "ArrowDown" && names.length) {
      event.preventDefault();
      highlight((active + 1) % names.length);
    } else if (event.key === "ArrowUp" && names.length) {
      event.preventDefault();
      highlight(active <= 0 ? names.length - 1 : active - 1);
    } else if (event.key === "Enter" && active >= 0) {
      event.preventDefault();
      choose(names[active]);
    } else if (event.key === "Escape" && !listbox.hidden) {
      close();
    }
  });
  input.addEventListener("blur", close);
})();
