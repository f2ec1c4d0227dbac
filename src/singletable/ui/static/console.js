// singletable console: small conveniences over plain HTML forms; every page works without this file.
"use strict";

document.addEventListener("submit", (event) => {
  // Forms marked .confirm (deleting an item) ask first.
  const form = event.target;
  if (form.classList.contains("confirm") && !window.confirm(form.dataset.confirm || "Are you sure?")) {
    event.preventDefault();
  }
});

document.addEventListener("click", (event) => {
  // "Format JSON" re-indents the editor's text, or says where it is not JSON (the server checks again).
  const button = event.target.closest("button.format-json");
  if (!button) return;
  const editor = button.form.querySelector("textarea.json");
  if (/\d{16,}|\d\.\d{15,}/.test(editor.value)) {
    // JavaScript numbers keep about 15 digits; DynamoDB's keep 38. Leave such text exactly as it is.
    editor.setCustomValidity("this JSON has numbers longer than the browser keeps; not reformatted");
    editor.reportValidity();
    editor.setCustomValidity("");
    return;
  }
  try {
    editor.value = JSON.stringify(JSON.parse(editor.value), null, 2);
    editor.setCustomValidity("");
  } catch (error) {
    editor.setCustomValidity(String(error.message));
    editor.reportValidity();
  }
});
