// The colour theme, and the header's menus. Loaded blocking in <head> (the CSP allows no inline
// script) so that a reader's chosen theme is on <html> before the first paint. site.css's
// colours follow the system's preference (color-scheme: light dark); data-theme="light" or
// "dark" on <html> overrides it. Without JavaScript the system's preference still applies and
// the switch stays hidden.
"use strict";

(() => {
  const KEY = "theme"; // localStorage: "light" or "dark"; nothing: follow the system
  const root = document.documentElement;
  const system = window.matchMedia("(prefers-color-scheme: dark)");

  const stored = () => {
    try {
      const value = localStorage.getItem(KEY);
      return value === "light" || value === "dark" ? value : null;
    } catch {
      return null; // storage refused: the switch still works on this page
    }
  };
  let theme = stored();

  const apply = () => {
    if (theme) root.dataset.theme = theme;
    else delete root.dataset.theme;
    const toggle = document.getElementById("theme-toggle");
    if (toggle) toggle.setAttribute("aria-pressed", String(theme ? theme === "dark" : system.matches));
  };

  const choose = (dark) => {
    // Choosing what the system shows anyway is no choice: the page follows the system again.
    theme = dark === system.matches ? null : dark ? "dark" : "light";
    try {
      if (theme) localStorage.setItem(KEY, theme);
      else localStorage.removeItem(KEY);
    } catch {
      // not kept: this page switches all the same
    }
    apply();
  };

  apply();
  system.addEventListener("change", apply);
  window.addEventListener("storage", (event) => {
    if (event.key === KEY || event.key === null) {
      theme = stored(); // chosen in another tab
      apply();
    }
  });

  document.addEventListener("DOMContentLoaded", () => {
    const toggle = document.getElementById("theme-toggle");
    if (toggle) {
      toggle.hidden = false;
      apply();
      toggle.addEventListener("click", () => choose(toggle.getAttribute("aria-pressed") !== "true"));
    }

    // The header's menus (<details>): a click elsewhere closes them; Escape closes the one it is
    // in (and not the phone's menu around it, which site.js closes on a second Escape).
    const menus = [...document.querySelectorAll(".site-header details")];
    document.addEventListener("click", (event) => {
      for (const menu of menus) if (menu.open && !menu.contains(event.target)) menu.open = false;
    });
    for (const menu of menus) {
      menu.addEventListener("keydown", (event) => {
        if (event.key !== "Escape" || !menu.open) return;
        menu.open = false;
        menu.querySelector("summary").focus();
        event.stopPropagation();
      });
    }
  });
})();
