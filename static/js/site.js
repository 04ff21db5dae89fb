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
  // On narrow screens the two panels share the window's scroll: each tab keeps its own, saved
  // on leaving it and given back on coming back; a tab seen for the first time (or a link to
  // something in it, `target`) starts at its top, just under the sticky bar.
  const bar = tablist.closest(".builder-bar") || tablist;
  const scrolls = {};
  const topOf = (element) => element.getBoundingClientRect().top + window.scrollY - bar.offsetHeight;
  const select = (tab, focus, target) => {
    const was = holder.dataset.tab;
    const moving = narrow.matches && was !== undefined && was !== tab.dataset.tab;
    if (moving) scrolls[was] = window.scrollY;
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute("aria-selected", String(on));
      t.tabIndex = on ? 0 : -1;
    }
    holder.dataset.tab = tab.dataset.tab;
    if (moving) {  // at once: the page's smooth scrolling is for links within one view
      const panel = document.getElementById(tab.getAttribute("aria-controls"));
      const top = target ? topOf(target) : scrolls[tab.dataset.tab] ?? Math.min(window.scrollY, topOf(panel));
      window.scrollTo({ top, behavior: "instant" });
    }
    if (focus) tab.focus({ preventScroll: true });
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
    if (tab) select(tab, false, target);
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

// The builder's changes (+, −, quick add) while their answer is on its way, sent or queued
// behind another: the button pressed shows it (aria-busy: site.css dims it, with a progress
// cursor and a turning ring) and says it cannot be pressed now (aria-disabled, not disabled:
// it keeps the keyboard focus), and a second press of it sends nothing. htmx fires
// htmx:confirm once per press, and again with the same event when a queued press is sent.
(() => {
  const pending = new WeakMap(); // form → {event, button, ownDisabled}
  document.addEventListener("htmx:confirm", (event) => {
    const form = event.detail.elt;
    if (!(form instanceof HTMLFormElement) || !form.matches("#builder-page form[hx-post]")) return;
    const mark = pending.get(form);
    if (mark) {
      if (mark.event !== event.detail.triggeringEvent) event.preventDefault();
      return;
    }
    const button = form.querySelector("button");
    if (!button) return;
    const ownDisabled = !button.hasAttribute("aria-disabled");
    button.setAttribute("aria-busy", "true");
    if (ownDisabled) button.setAttribute("aria-disabled", "true");
    pending.set(form, { event: event.detail.triggeringEvent, button, ownDisabled });
  });
  const done = (event) => {
    const mark = pending.get(event.detail.elt);
    if (!mark) return;
    pending.delete(event.detail.elt);
    mark.button.removeAttribute("aria-busy");
    if (mark.ownDisabled) mark.button.removeAttribute("aria-disabled");
  };
  document.addEventListener("htmx:afterRequest", done);
  document.addEventListener("htmx:validation:halted", done);
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

// --- Deck page: list or visual view of the cards (issue 25) ---------------------------------
// Both views are in the page; a switch link (?view=visual, or none for the list) loads the
// other without JavaScript. With it, the switch is instant: show that view, mark its link, and
// put its address in the bar (a reload or a shared link shows the same view).
(() => {
  const switcher = document.querySelector("[data-deck-views]");
  if (!switcher) return;
  switcher.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-deck-view]");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    const wanted = link.dataset.deckView;
    for (const panel of document.querySelectorAll("[data-deck-view-panel]")) {
      panel.hidden = panel.dataset.deckViewPanel !== wanted;
    }
    for (const other of switcher.querySelectorAll("a[data-deck-view]")) {
      if (other === link) other.setAttribute("aria-current", "true");
      else other.removeAttribute("aria-current");
    }
    history.replaceState(history.state, "", link.href.split("#")[0]);
  });
})();
// --- end of deck page views ------------------------------------------------------------------
