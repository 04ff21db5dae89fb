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

// The header's menu on phones: the button shows only with JavaScript; CSS folds the menu.
(() => {
  const toggle = document.getElementById("menu-toggle");
  const menu = document.getElementById("site-menu");
  if (!toggle || !menu) return;
  const header = toggle.closest(".site-header");
  header.classList.add("menu-ready");
  toggle.hidden = false;
  const open = (yes) => {
    toggle.setAttribute("aria-expanded", String(yes));
    menu.classList.toggle("open", yes);
  };
  toggle.addEventListener("click", () => open(toggle.getAttribute("aria-expanded") !== "true"));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && menu.classList.contains("open")) {
      open(false);
      toggle.focus();
    }
  });
})();

// The builder as two tabs (Cards / Deck) on narrow screens; both side by side on wide ones.
(() => {
  const tablist = document.querySelector("[data-tabs]");
  if (!tablist) return;
  const tabs = [...tablist.querySelectorAll("[role=tab]")];
  const holder = document.getElementById(tablist.dataset.tabs);
  const narrow = window.matchMedia("(max-width: 63.99rem)");
  const select = (tab, focus) => {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute("aria-selected", String(on));
      t.tabIndex = on ? 0 : -1;
    }
    holder.dataset.tab = tab.dataset.tab;
    if (focus) tab.focus();
  };
  const roles = () => {
    for (const t of tabs) {
      const panel = document.getElementById(t.getAttribute("aria-controls"));
      if (narrow.matches) {
        panel.setAttribute("role", "tabpanel");
        panel.setAttribute("aria-labelledby", t.id);
      } else {
        panel.removeAttribute("role");
        panel.removeAttribute("aria-labelledby");
      }
    }
  };
  tablist.hidden = false;
  holder.classList.add("tabbed");
  roles();
  narrow.addEventListener("change", roles);
  select(tabs.find((t) => t.getAttribute("aria-selected") === "true") || tabs[0], false);
  tablist.addEventListener("click", (event) => {
    const tab = event.target.closest("[role=tab]");
    if (tab) select(tab, false);
  });
  tablist.addEventListener("keydown", (event) => {
    const i = tabs.indexOf(document.activeElement);
    if (i < 0) return;
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (step) {
      event.preventDefault();
      select(tabs[(i + step + tabs.length) % tabs.length], true);
    } else if (event.key === "Home" || event.key === "End") {
      event.preventDefault();
      select(tabs[event.key === "Home" ? 0 : tabs.length - 1], true);
    }
  });
  // A link to something inside the other tab (a skip link, "3 problems") opens that tab.
  const follow = () => {
    const target = location.hash && document.getElementById(location.hash.slice(1));
    const tab = target && tabs.find((t) => document.getElementById(t.getAttribute("aria-controls")).contains(target));
    if (tab) select(tab, false);
  };
  window.addEventListener("hashchange", follow);
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[href^='#']");
    if (link) setTimeout(follow, 0);
  });
  follow();
})();

// htmx swaps keep keyboard focus: the control pressed, or the same control in the new content;
// when it is gone (the last copy removed), the heading named by the nearest data-focus-home.
(() => {
  let last = null;
  const restore = () => {
    if (!last) return;
    const active = document.activeElement;
    if (active && active !== document.body && document.contains(active)) return;
    const again = (last.id && document.getElementById(last.id)) || (last.home && document.getElementById(last.home));
    if (again) again.focus();
  };
  document.addEventListener("htmx:beforeSwap", () => {
    const active = document.activeElement;
    if (!active || active === document.body) { last = null; return; }
    const home = active.closest("[data-focus-home]");
    last = { id: active.id, home: home && home.dataset.focusHome };
    // A form whose own block an out-of-band swap replaces is gone from the page: its settle
    // event reaches no one, so look again once htmx has settled (its settle delay is 20 ms).
    setTimeout(restore, 50);
  });
  document.addEventListener("htmx:afterSettle", restore);
})();

// Escape hides a card preview shown on hover or focus (WCAG 1.4.13: dismissible) until the
// pointer or the focus moves on.
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") document.body.classList.add("previews-hidden");
});
for (const type of ["focusin", "pointerover"]) {
  document.addEventListener(type, (event) => {
    if (!event.target.closest(".has-preview")) document.body.classList.remove("previews-hidden");
  });
}

// The card filters search as the words are typed (htmx: `input` on the search box, 400 ms after
// the last key). The box's `change`, as it loses focus to the + pressed next, would only ask for
// the same list again, and that list, read while the + is on its way, could land after the +'s
// answer and show the old count.
document.addEventListener("change", (event) => {
  if (event.target.id === "id_q" && event.target.closest("form.filters")) event.stopPropagation();
}, true);
