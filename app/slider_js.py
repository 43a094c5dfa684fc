"""The browser side of the in-figure sliders (``app.figures.frames``), shared by the app (``app.instant``) and the
handouts (``app.handouts``): fixed code, no data from any reader.

For every Plotly chart with an in-figure slider on the page it

* lays a real range input (``<input type="range">``) over Plotly's slider, which draws nothing itself: Tab reaches
  it, the arrow keys, Page Up / Page Down, Home and End move the picture, and a screen reader reads its name and the
  current value ("ε = 1"); the pointer still drags Plotly's own slider underneath;
* does the same for the Play button (a real ``<button>``);
* keeps the other charts of the page with a slider over the same parameter at the same stop;
* tells ``onMove(key, value, how)`` whenever the shown stop changes (``how``: "drag", "key", "play" or "follow").

It calls ``window.Plotly`` (the page's Plotly: Streamlit's, or the one inlined in a handout).
"""

SLIDERS_JS = r"""
(() => {
if (window.dpxSliders) return;
const AT_ONCE = { mode: "immediate", frame: { duration: 0, redraw: true }, transition: { duration: 0 } };
const S = window.dpxSliders = { onMove: null, shown: {}, dragging: false, playing: false };

const sliderOf = (gd) => {
  const s = gd && gd.layout && gd.layout.sliders;
  return s && s[0] && s[0].name && Array.isArray(s[0].steps) ? s[0] : null;
};
const activeOf = (gd) => {
  const full = gd._fullLayout && gd._fullLayout.sliders && gd._fullLayout.sliders[0];
  const s = sliderOf(gd);
  return full && Number.isInteger(full.active) ? full.active : (s && Number.isInteger(s.active) ? s.active : 0);
};
const text = (s, i) => (s.currentvalue && s.currentvalue.prefix || "") + String(s.steps[i].label || "")
  .replace(/<sup>(.*?)<\/sup>/g, "^$1").replace(/<[^>]*>/g, "");

function goTo(gd, i) {
  const s = sliderOf(gd);
  if (!s || !s.steps[i] || activeOf(gd) === i) return;
  // the step's own way of switching: without a redraw where its frames change traces' data only
  const how = Array.isArray(s.steps[i].args) && s.steps[i].args[1] ? s.steps[i].args[1] : AT_ONCE;
  window.Plotly.animate(gd, [s.steps[i].value], how);
}

function charts() {
  return Array.from(document.querySelectorAll(".js-plotly-plot")).filter((gd) => sliderOf(gd));
}

function follow(from, key, value) {
  for (const gd of charts()) {
    if (gd === from) continue;
    const s = sliderOf(gd);
    if (s.name !== key) continue;
    const i = s.steps.findIndex((st) => String(st.value) === value);
    if (i >= 0 && activeOf(gd) !== i) { gd.dpxHow = "follow"; goTo(gd, i); }
  }
}

// The proxies: a range input over the rail and a button over Play, placed where Plotly drew them.
function place(gd) {
  const s = sliderOf(gd);
  const box = gd.querySelector(".svg-container");
  const rail = gd.querySelector(".slider-group .slider-rail-rect") || gd.querySelector(".slider-rail-rect");
  if (!s || !box || !rail) return;
  let input = box.querySelector("input.dpx-slider");
  if (!input) {
    input = document.createElement("input");
    input.type = "range";
    input.className = "dpx-slider";
    input.min = "0";
    input.step = "1";
    input.addEventListener("input", () => { gd.dpxHow = "key"; goTo(gd, Number(input.value)); });
    input.addEventListener("keydown", (e) => {  // Page Up / Page Down: a fifth of the way
      if (e.key !== "PageUp" && e.key !== "PageDown") return;
      e.preventDefault();
      const n = s.steps.length, jump = Math.max(1, Math.round(n / 5));
      const i = Math.max(0, Math.min(n - 1, activeOf(gd) + (e.key === "PageUp" ? jump : -jump)));
      gd.dpxHow = "key";
      goTo(gd, i);
    });
    box.appendChild(input);
  }
  const shown = sliderOf(gd);
  input.max = String(shown.steps.length - 1);
  input.value = String(activeOf(gd));
  const meta = gd.layout.meta && typeof gd.layout.meta === "object" ? gd.layout.meta : {};
  input.setAttribute("aria-label", meta.slider || (shown.currentvalue && shown.currentvalue.prefix || "")
    .replace(/[=:]\s*$/, "").trim() || shown.name);
  input.setAttribute("aria-valuetext", text(shown, activeOf(gd)));
  const c = box.getBoundingClientRect(), r = rail.getBoundingClientRect();
  Object.assign(input.style, { left: `${r.left - c.left - 6}px`, top: `${r.top - c.top - 12}px`,
    width: `${r.width + 12}px`, height: `${r.height + 24}px` });
  const play = gd.querySelector(".updatemenu-button");
  let button = box.querySelector("button.dpx-play");
  if (play && !button) {
    button = document.createElement("button");
    button.type = "button";
    button.className = "dpx-play";
    button.textContent = "Play";
    button.addEventListener("click", () => {
      const menu = gd.layout.updatemenus && gd.layout.updatemenus[0];
      const args = menu && menu.buttons && menu.buttons[0] && menu.buttons[0].args;
      if (!args) return;
      gd.dpxHow = "play";
      S.playing = true;
      window.Plotly.animate(gd, null, args[1]);
    });
    box.appendChild(button);
  }
  if (play && button) {
    const p = play.getBoundingClientRect();
    Object.assign(button.style, { left: `${p.left - c.left}px`, top: `${p.top - c.top}px`, width: `${p.width}px`,
      height: `${p.height}px` });
  }
}

function wire(gd) {
  if (gd.dpxWired || !sliderOf(gd) || typeof gd.on !== "function") return;
  gd.dpxWired = true;
  const released = () => { if (!S.dragging) return; S.dragging = false; if (S.onMove) S.onMove(null, null, "idle"); };
  gd.on("plotly_sliderstart", () => {
    S.dragging = true;
    gd.dpxHow = "drag";
    // released anywhere: Plotly hears a release over its own chart only
    window.addEventListener("mouseup", released, { capture: true, once: true });
    window.addEventListener("touchend", released, { capture: true, once: true });
  });
  gd.on("plotly_sliderend", released);
  gd.on("plotly_animated", () => { if (S.playing) { S.playing = false; if (S.onMove) S.onMove(null, null, "idle"); } });
  gd.on("plotly_afterplot", () => place(gd));
  // A frame that moves an axis: its ranges set now, before Plotly applies the frame's data (a microtask later), so
  // that the switch finds the axes where the frame wants them and draws the stop whole in this frame; left to
  // Plotly, the new axes would come from an axis transition at the next animation frame.
  gd.on("plotly_animatingframe", (e) => {
    const lay = e && e.frame && e.frame.layout;
    if (!lay) return;
    const ranges = {};
    for (const k of Object.keys(lay)) {
      const want = /^[xy]axis[0-9]*$/.test(k) && lay[k] && lay[k].range;
      const now = want && gd._fullLayout[k] && gd._fullLayout[k].range;
      if (Array.isArray(want) && now && (now[0] !== want[0] || now[1] !== want[1])) ranges[k + ".range"] = want.slice();
    }
    if (Object.keys(ranges).length) window.Plotly.relayout(gd, ranges);
  });
  gd.on("plotly_sliderchange", (e) => {
    const key = String(e.slider.name), value = String(e.step.value);
    const how = e.interaction ? "drag" : (gd.dpxHow || "play");
    gd.dpxHow = null;
    const input = gd.querySelector("input.dpx-slider");  // no layout read here: the chart redraws first
    if (input) {
      input.value = String(e.slider.active);
      input.setAttribute("aria-valuetext", text(e.slider, e.slider.active));
    }
    if (how === "follow" || S.shown[key] === value) return;
    S.shown[key] = value;
    // the other charts over the same parameter now, so that they are painted in the same frame as this one
    follow(gd, key, value);
    // the rest after the redraw: the address, the page
    requestAnimationFrame(() => setTimeout(() => {
      if (S.shown[key] === value && S.onMove) S.onMove(key, value, how);  // unless moved on meanwhile
    }, 0));
  });
  place(gd);
}

S.scan = () => { for (const gd of charts()) { wire(gd); place(gd); } };
S.sliderOf = sliderOf;
S.activeOf = activeOf;
S.goTo = goTo;
let queued = false;
new MutationObserver(() => {
  if (queued) return;
  queued = true;
  setTimeout(() => { queued = false; S.scan(); }, 60);
}).observe(document.body, { childList: true, subtree: true });
window.addEventListener("resize", () => setTimeout(S.scan, 100));
S.scan();
})();
"""

#: The proxies' look: invisible over Plotly's own slider and button, with a focus ring where the keyboard is.
SLIDERS_CSS = """
.js-plotly-plot .svg-container input.dpx-slider, .js-plotly-plot .svg-container button.dpx-play {
  position: absolute; margin: 0; padding: 0; opacity: 1; background: transparent; border: 0; color: transparent;
  pointer-events: none; -webkit-appearance: none; appearance: none; z-index: 2; }
.js-plotly-plot .svg-container input.dpx-slider::-webkit-slider-thumb { -webkit-appearance: none; width: 1px;
  height: 1px; background: transparent; border: 0; }
.js-plotly-plot .svg-container input.dpx-slider::-moz-range-thumb { width: 1px; height: 1px; background: transparent;
  border: 0; }
.js-plotly-plot .svg-container input.dpx-slider:focus-visible,
.js-plotly-plot .svg-container button.dpx-play:focus-visible { outline: 3px solid #0072B2; outline-offset: 2px;
  border-radius: 6px; }
"""
