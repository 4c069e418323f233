// The seat picker of the launch and roster forms. The players box (one name per
// line) stays the form's field: the chips are drawn from it and every change is written back
// to it, so the page works without this script and anything filling the box still works.
// Typing a few letters offers the league's players (the server folds case, accents and
// width: "zoe" finds "Zoë"); a new name is the last option. Seats move up or down, go, are
// shuffled, or come back as last time's. A name close to a known player's is still asked
// about by the server ("Did you mean?").
(function () {
  "use strict";
  var root = document.querySelector("[data-seats]");
  var form = root && root.closest("form");
  var box = form && form.querySelector("textarea[name=players]");
  if (!box) {
    return;
  }
  var list = root.querySelector("[data-seat-list]");
  var empty = root.querySelector("[data-seats-empty]");
  var input = root.querySelector("[role=combobox]");
  var listbox = root.querySelector("[role=listbox]");
  var status = root.querySelector("[data-seats-status]");
  var shuffleButton = root.querySelector("[data-seats-shuffle]");
  var lastButton = root.querySelector("[data-seats-last]");
  var lastData = document.getElementById("seats-last");
  var last = lastData ? JSON.parse(lastData.textContent) : [];
  var searchUrl = root.getAttribute("data-search-url");
  var options = [];  // [{name, isNew}]
  var active = -1;
  var asked = 0;  // the latest search sent: older answers are dropped
  var timer = null;

  function words(key, name) {
    return root.getAttribute("data-" + key).replace("{name}", name);
  }

  // As the server's name_key, near enough to tell a name already seated.
  function key(name) {
    return name.normalize("NFKC").toLowerCase().split(/\s+/).filter(Boolean).join(" ");
  }

  function names() {
    return box.value.split(/\r?\n/).map(function (line) {
      return line.trim();
    }).filter(Boolean);
  }

  function say(message) {
    status.textContent = "";
    window.setTimeout(function () {
      status.textContent = message;
    }, 50);
  }

  function button(label, symbol, className, onPress) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "seat-button " + className;
    b.setAttribute("aria-label", label);
    b.textContent = symbol;
    b.addEventListener("click", onPress);
    return b;
  }

  // Write the seats into the box (the form's field) and draw them again; focus, when given,
  // goes back to that button of the seat at that index.
  function seat(seated, focus) {
    box.value = seated.join("\n");
    draw(focus);
  }

  // "Did you mean?" questions the server asked, each shown in the chip of its name (back in
  // their own box while that name is not seated).
  var doubtsBox = form.querySelector(".name-doubts");
  var doubts = doubtsBox ? Array.prototype.slice.call(doubtsBox.querySelectorAll(".name-doubt")) : [];

  function doubtOf(name) {
    return doubts.filter(function (fieldset) {
      var typed = fieldset.querySelector("input[type=hidden][name$='-name']");
      return typed && key(typed.value) === key(name);
    })[0];
  }

  function draw(focus) {
    var seated = names();
    doubts.forEach(function (fieldset) {
      doubtsBox.appendChild(fieldset);
    });
    list.textContent = "";
    seated.forEach(function (name, index) {
      var item = document.createElement("li");
      item.className = "seat-chip";
      var label = document.createElement("span");
      label.className = "seat-name";
      label.textContent = name;
      item.appendChild(label);
      var up = button(words("move-up", name), "\u25B2", "seat-up", function () {
        move(index, -1, "seat-up");
      });
      var down = button(words("move-down", name), "\u25BC", "seat-down", function () {
        move(index, 1, "seat-down");
      });
      up.disabled = index === 0;
      down.disabled = index === seated.length - 1;
      item.appendChild(up);
      item.appendChild(down);
      item.appendChild(button(words("remove", name), "\u2715", "seat-remove", function () {
        remove(index);
      }));
      var doubt = doubtOf(name);
      if (doubt) {
        item.classList.add("seat-in-doubt");
        item.appendChild(doubt);
      }
      list.appendChild(item);
    });
    empty.hidden = seated.length > 0;
    shuffleButton.disabled = seated.length < 2;
    if (focus) {
      var chip = list.children[Math.min(focus.index, seated.length - 1)];
      var target = chip && chip.querySelector("." + focus.which + ":not([disabled])");
      (target || input).focus();
    }
  }

  function move(index, step, which) {
    var seated = names();
    var to = index + step;
    if (to < 0 || to >= seated.length) {
      return;
    }
    var name = seated.splice(index, 1)[0];
    seated.splice(to, 0, name);
    seat(seated, { index: to, which: which });
  }

  function remove(index) {
    var seated = names();
    var name = seated.splice(index, 1)[0];
    seat(seated, { index: index, which: "seat-remove" });
    say(words("removed", name));
  }

  function add(name) {
    name = name.trim().split(/\s+/).join(" ");
    if (!name) {
      return;
    }
    var seated = names();
    var taken = seated.some(function (other) {
      return key(other) === key(name);
    });
    if (!taken) {
      seated.push(name);
      seat(seated);
    }
    input.value = "";
    close();
    input.focus();
    say(words("seated", name));
  }

  function close() {
    options = [];
    active = -1;
    listbox.textContent = "";
    listbox.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
  }

  function highlight(index) {
    active = index;
    Array.prototype.forEach.call(listbox.children, function (option, i) {
      option.setAttribute("aria-selected", i === index ? "true" : "false");
    });
    if (index >= 0) {
      input.setAttribute("aria-activedescendant", listbox.children[index].id);
      listbox.children[index].scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }

  function show(typed, found) {
    var seatedKeys = names().map(key);
    options = found.filter(function (name) {
      return seatedKeys.indexOf(key(name)) === -1;
    }).map(function (name) {
      return { name: name, isNew: false };
    });
    var known = found.some(function (name) {
      return key(name) === key(typed);
    });
    if (!known && seatedKeys.indexOf(key(typed)) === -1) {
      options.push({ name: typed, isNew: true });
    }
    listbox.textContent = "";
    options.forEach(function (option, index) {
      var item = document.createElement("li");
      item.id = "seat-option-" + index;
      item.setAttribute("role", "option");
      item.setAttribute("aria-selected", "false");
      item.className = option.isNew ? "seat-option seat-option-new" : "seat-option";
      item.textContent = option.isNew ? words("add-new", option.name) : option.name;
      // Keep the keyboard up on a tablet: the input never loses focus to a tap on an option.
      item.addEventListener("mousedown", function (event) {
        event.preventDefault();
      });
      item.addEventListener("click", function () {
        add(option.name);
      });
      listbox.appendChild(item);
    });
    listbox.hidden = options.length === 0;
    input.setAttribute("aria-expanded", options.length ? "true" : "false");
    active = -1;
    input.removeAttribute("aria-activedescendant");
  }

  function search() {
    var typed = input.value.trim().split(/\s+/).join(" ");
    window.clearTimeout(timer);
    if (!typed) {
      close();
      return;
    }
    var mine = ++asked;
    // The new name is offered at once; the league's players follow when the server answers.
    show(typed, []);
    timer = window.setTimeout(function () {
      fetch(searchUrl + "?q=" + encodeURIComponent(typed), {
        credentials: "same-origin",
        headers: { Accept: "application/json" },
      }).then(function (response) {
        return response.ok ? response.json() : { players: [] };
      }).then(function (answer) {
        if (mine === asked) {
          show(typed, (answer.players || []).map(function (p) {
            return p.name;
          }));
        }
      }).catch(function () {
        // Offline or refused: only the new name is offered, as already shown.
      });
    }, 120);
  }

  input.addEventListener("input", search);
  input.addEventListener("keydown", function (event) {
    if (event.key === "ArrowDown" && options.length) {
      event.preventDefault();
      highlight((active + 1) % options.length);
    } else if (event.key === "ArrowUp" && options.length) {
      event.preventDefault();
      highlight(active <= 0 ? options.length - 1 : active - 1);
    } else if (event.key === "Enter") {
      // Enter seats the highlighted option, or the name as typed; it never sends the form.
      if (input.value.trim() || active >= 0) {
        event.preventDefault();
        add(active >= 0 ? options[active].name : input.value);
      }
    } else if (event.key === "Escape" && !listbox.hidden) {
      event.preventDefault();
      close();
    }
  });
  input.addEventListener("blur", function () {
    window.setTimeout(close, 150);
  });
  box.addEventListener("input", function () {
    draw();
  });
  // A name typed but not yet chosen is meant to play: it takes the last seat before the form
  // is sent (the form's data is read after this event).
  form.addEventListener("submit", function () {
    if (input.value.trim()) {
      add(input.value);
    }
  });
  shuffleButton.addEventListener("click", function () {
    var seated = names();
    var random = new Uint32Array(seated.length);
    window.crypto.getRandomValues(random);
    for (var i = seated.length - 1; i > 0; i--) {
      var j = random[i] % (i + 1);
      var swap = seated[i];
      seated[i] = seated[j];
      seated[j] = swap;
    }
    seat(seated);
    say(root.getAttribute("data-shuffled"));
  });
  if (lastButton) {
    lastButton.addEventListener("click", function () {
      seat(last.slice());
      say(root.getAttribute("data-filled"));
    });
  }

  // The seats go above the players box. The seats show the names, so the box (still the
  // form's field) folds away behind a button, for typing or pasting a whole list; it stays
  // open when the server had something to say about it.
  box.rows = 5;
  var field = box.closest(".field") || box.parentNode;
  field.parentNode.insertBefore(root, field);
  root.hidden = false;
  var typeList = root.querySelector("[data-seats-type]");
  if (typeList && !field.classList.contains("field-invalid")) {
    box.id = box.id || "id_players";
    field.hidden = true;
    typeList.hidden = false;
    typeList.setAttribute("aria-controls", field.id = field.id || box.id + "-field");
    typeList.setAttribute("aria-expanded", "false");
    typeList.addEventListener("click", function () {
      field.hidden = !field.hidden;
      typeList.setAttribute("aria-expanded", field.hidden ? "false" : "true");
      if (!field.hidden) {
        box.focus();
      }
    });
  }
  draw();
})();
