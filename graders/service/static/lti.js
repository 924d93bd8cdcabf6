// Only adds to a page that works without it: the deep-linking answer goes back to the LMS
// at once, as the LMS expects, instead of waiting for the instructor's click.
(function () {
  "use strict";
  var form = document.querySelector("form[data-auto-submit]");
  if (form) { form.submit(); }
})();
