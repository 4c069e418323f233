// The correction form's order: the players as a list with up and down buttons, the winner
// last. Every move rewrites the form's text box (one name per line), which is what is
// saved; without this script the host edits the text box itself.
(function () {
  "use strict";
  var list = document.querySelector(".correct-order");
  var box = document.querySelector(".correct-form textarea[name=players]");
  var data = document.getElementById("correct-labels");
  if (!list || !box || !data) {
    return;
  }
  var labels = JSON.parse(data.textContent);

  function rows() {
    return Array.prototype.slice.call(list.querySelectorAll(".correct-row"));
  }

  // The text box as it came back (a refused save, or the browser's restored form): the list
  // follows it when it names the same players.
  function follow() {
    var lines = box.value.split("\n").map(function (line) { return line.trim(); })
      .filter(Boolean);
    var byName = {};
    rows().forEach(function (row) { byName[row.dataset.name] = row; });
    if (lines.length !== rows().length) {
      return;
    }
    for (var i = 0; i < lines.length; i += 1) {
      if (!byName[lines[i]]) {
        return;
      }
    }
    lines.forEach(function (name) { list.appendChild(byName[name]); });
  }

  function render() {
    var all = rows();
    all.forEach(function (row, index) {
      row.querySelector(".correct-place").textContent = labels[index];
      row.querySelector("[data-move=up]").disabled = index === 0;
      row.querySelector("[data-move=down]").disabled = index === all.length - 1;
    });
    box.value = all.map(function (row) { return row.dataset.name; }).join("\n");
  }

  list.addEventListener("click", function (event) {
    var button = event.target.closest(".correct-move");
    if (!button) {
      return;
    }
    var row = button.closest(".correct-row");
    var up = button.dataset.move === "up";
    var other = up ? row.previousElementSibling : row.nextElementSibling;
    if (!other) {
      return;
    }
    list.insertBefore(up ? row : other, up ? other : row);
    render();
    // Focus stays with the player moved; at the end of the list, on the button still usable.
    var again = row.querySelector("[data-move=" + (up ? "up" : "down") + "]");
    (again.disabled ? row.querySelector(".correct-move:not(:disabled)") : again).focus();
  });

  follow();
  render();
  list.hidden = false;
  box.closest(".field").hidden = true;
})();
