// The "Copy" button beside a read-only text (the night's story): copies it to the
// clipboard. Without JavaScript the button stays hidden and the text can be selected.
(function () {
  "use strict";
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var source = document.getElementById(button.dataset.copy);
    if (!source) return;
    var label = button.textContent;
    button.hidden = false;
    button.addEventListener("click", function () {
      var done = function () {
        button.textContent = button.dataset.copied;
        setTimeout(function () { button.textContent = label; }, 2000);
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(source.value).then(done, function () {
          source.select();
        });
      } else {
        // Plain http on the pub's network: the older way still works there.
        source.select();
        if (document.execCommand("copy")) done();
      }
    });
  });
})();
