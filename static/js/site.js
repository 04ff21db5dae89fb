// Small progressive enhancements; every page works without them (CSP: no inline script).
"use strict";

// Copy buttons: <button data-copy="#id-of-input-or-element">; says "Copied" in a live region.
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const source = document.querySelector(button.dataset.copy);
  if (!source) return;
  const text = "value" in source ? source.value : source.textContent;
  const status = document.getElementById(button.getAttribute("aria-controls")) || button;
  const done = (message) => { status.textContent = message; };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(() => done("Copied"), () => done("Select and copy it"));
  } else {
    if (source.select) source.select();
    done(document.execCommand && document.execCommand("copy") ? "Copied" : "Select and copy it");
  }
});
