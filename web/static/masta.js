/* Shared by every page: posting with the CSRF token, the live event stream, drawing cards. */
"use strict";
const masta = (() => {
  const csrf = () => document.querySelector('meta[name="csrf-token"]').content;
  const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };

  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") el.className = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? "" : v);
    }
    for (const kid of kids.flat()) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return el;
  }

  function card(id, small) {
    id = String(id);
    if (id === "JK") return h("span", { class: "card joker" + (small ? " small" : ""), title: "joker" }, "JK");
    const suit = id.slice(-1), rank = id.slice(0, -1);
    const red = suit === "H" || suit === "D";
    return h("span", { class: "card" + (red ? " red" : "") + (small ? " small" : ""), title: id, "data-card": id },
      rank + (SUITS[suit] || suit));
  }

  async function post(url, data) {
    const resp = await fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() },
      body: JSON.stringify(data || {}),
    });
    let body = {};
    try { body = await resp.json(); } catch (e) { body = { error: resp.statusText }; }
    if (!resp.ok) toast(body.error || ("refused: " + resp.status), true);
    return { ok: resp.ok, status: resp.status, body };
  }

  async function get(url) {
    const resp = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    return resp.json();
  }

  let toastTimer = null;
  function toast(text, bad) {
    let el = document.getElementById("toast");
    if (!el) { el = h("div", { id: "toast", class: "toast" }); document.body.append(el); }
    el.textContent = text; el.className = "toast" + (bad ? " bad" : ""); el.hidden = false;
    clearTimeout(toastTimer); toastTimer = setTimeout(() => { el.hidden = true; }, 4000);
  }

  /* One EventSource per page; handlers by message name ("update", "evening", "reload"). */
  function listen(handlers) {
    const conn = document.getElementById("conn");
    const es = new EventSource("/stream");
    es.onopen = () => { if (conn) conn.classList.add("up"); if (handlers.open) handlers.open(); };
    es.onerror = () => { if (conn) conn.classList.remove("up"); };
    for (const [name, fn] of Object.entries(handlers)) {
      if (name === "open") continue;
      es.addEventListener(name, (e) => fn(JSON.parse(e.data)));
    }
    es.addEventListener("reload", () => location.reload());
    return es;
  }

  /* The big ruling banner: verdict, plain words, the rule it cites, the play. */
  function banner(el, latest, fresh) {
    el.className = "ruling";
    el.replaceChildren();
    if (!latest) {
      el.append(h("div", { class: "words" }, "No ruling yet"));
      return;
    }
    const r = latest.ruling || {};
    const verdict = r.verdict || "info";
    el.classList.add(verdict);
    if (fresh) { void el.offsetWidth; el.classList.add("fresh"); }
    const rules = (r.reasons || []).map((x) => x.rule).filter(Boolean);
    const ev = latest.event || {};
    el.append(
      h("div", { class: "verdict" }, { legal: "Legal", illegal: "Illegal", penalty: "Penalty" }[verdict] || verdict),
      h("div", { class: "words" }, latest.text || ""),
      rules.length ? h("div", { class: "rule" }, "Rule: " + rules.join(" · ")) : null,
      h("div", { class: "play" }, "#" + latest.seq + " ",
        (ev.cards || []).map((c) => card(c, true)),
        ev.player ? " " + ev.player : "",
        r.next ? "  next: " + r.next : ""),
    );
  }

  function initial(id) {
    const el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  }

  function when(t) {
    return new Date(t * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  }

  return { h, card, post, get, toast, listen, banner, initial, when };
})();
