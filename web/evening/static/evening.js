/* Evening page: titles, standings, ratings, the chart, duties, orders and votes from any phone. */
"use strict";
(() => {
  const { h, listen, initial, post, get } = masta;
  let data = initial("init");
  const ORDER = ["MASTA", "VICE-MASTA", "PEUPLE", "SHITHEAD"];

  function table(cols, rows) {
    if (!rows.length) return h("p", { class: "muted" }, "No finished game yet.");
    return h("div", { class: "scroll" }, h("table", {}, h("thead", {}, h("tr", {}, cols.map((c) => h("th", {}, c[0])))),
      h("tbody", {}, rows.map((r) => h("tr", {}, cols.map((c) => h("td", {}, c[1](r))))))));
  }

  function render(d) {
    const titles = d.titles_now || {};
    const byTitle = {};
    for (const [p, t] of Object.entries(titles)) (byTitle[t] = byTitle[t] || []).push(p);
    document.getElementById("titles").replaceChildren(...(Object.keys(titles).length ? ORDER.map((t) =>
      h("div", { class: "title t-" + t.toLowerCase() }, h("span", {}, t), h("b", {}, (byTitle[t] || ["–"]).join(", "))))
      : [h("p", { class: "muted" }, "The titles appear when the first game ends.")]),
      ...(Object.keys(titles).length && d.games && d.games.length && d.games[d.games.length - 1].assumed
        ? [h("p", { class: "small titles-assumed" }, h("span", { class: "tag assumed" }, "assumed"),
          " These titles rest on " + d.games[d.games.length - 1].assumed + " assumption(s) nobody confirmed (questions on the rulings page).")]
        : []));
    document.getElementById("standings").replaceChildren(table([
      ["Player", (r) => r.player], ["Games", (r) => r.games], ["MASTA", (r) => r.MASTA],
      ["VICE", (r) => r["VICE-MASTA"]], ["SHITHEAD", (r) => r.SHITHEAD],
      ["Avg place", (r) => r.average_place], ["Streak", (r) => r.streak ? r.streak.games + "× " + r.streak.title : ""],
    ], d.standings || []));
    document.getElementById("ratings").replaceChildren(table([
      ["Player", (r) => r.player], ["Rating", (r) => r.ordinal.toFixed(2)], ["μ", (r) => r.mu.toFixed(2)], ["σ", (r) => r.sigma.toFixed(2)],
    ], d.ratings || []));
    document.getElementById("chart").innerHTML = d.chart_svg || "";
    const duties = d.pending_duties || [];
    document.getElementById("duties").replaceChildren(...(duties.length ? duties.map((x) => h("div", { class: "prompt-box" }, x.text))
      : [h("p", { class: "muted" }, "No duty owed.")]));
    const codes = Object.entries(d.voter_codes || {});  // the operator's page only: hand them out
    document.getElementById("orders").replaceChildren(...(codes.length ? [h("div", { class: "panel small voter-codes" },
      "Voting codes (each player's phone asks for its own once): ", codes.map(([p, c]) => h("span", {}, h("b", {}, p), " " + c + " ")))] : []),
      ...(d.orders || []).slice().reverse().map(orderBox));
  }

  function orderBox(o) {
    const verdict = o.decided ? (o.serves ? "serves the general interest" : "does not serve the general interest") : "vote open";
    const voted = Object.entries(o.votes || {}).map(([p, v]) => p + ": " + (v ? "yes" : "no")).join(", ");
    const kids = [h("div", {}, h("b", {}, o.masta + " → " + o.to + ": "), "“" + o.text + "”"),
      h("div", { class: "small" }, h("span", { class: "tag " + (o.decided ? (o.serves ? "legal" : "illegal") : "prompt") }, verdict),
        voted ? " votes: " + voted : "", o.missing && o.missing.length ? " · still to vote: " + o.missing.join(", ") : "")];
    if (!o.decided && (o.missing || []).length) {
      const who = h("select", { "aria-label": "who votes" }, o.missing.map((p) => h("option", {}, p)));
      const me = localStorage.getItem("masta.me");
      if (me && o.missing.includes(me)) who.value = me;
      /* A phone proves who votes with that player's code (from the operator), asked once and kept. */
      const vote = async (serves) => {
        const me_ = who.value, key = "masta.code." + data.evening + "." + me_;
        localStorage.setItem("masta.me", me_);
        const send = (code) => post("/evening/api/vote", { order: o.seq, player: me_, serves, code: code || undefined });
        let code = localStorage.getItem(key);
        let r = await send(code);
        if (!r.ok && r.status === 403 && /voting code/.test(r.body.error || "")) {
          localStorage.removeItem(key);
          code = (window.prompt(me_ + "'s voting code (the operator has it):") || "").trim();
          if (code) r = await send(code);
        }
        if (r.ok && code) localStorage.setItem(key, code);
      };
      kids.push(h("div", { class: "row" }, "I am ", who,
        h("button", { type: "button", class: "vote-yes", onclick: () => vote(true) }, "Yes, it serves all"),
        h("button", { type: "button", class: "danger vote-no", onclick: () => vote(false) }, "No")));
    }
    return h("div", { class: "order panel" }, kids);
  }

  const ob = document.getElementById("order-btn");
  if (ob) ob.addEventListener("click", () => {
    const masta_ = Object.entries(data.titles_now || {}).find(([, t]) => t === "MASTA");
    post("/evening/api/events", { type: "order", player: masta_ ? masta_[0] : "", text: document.getElementById("order-text").value });
  });
  const db = document.getElementById("duty-btn");
  if (db) db.addEventListener("click", () => {
    const kind = document.getElementById("duty-kind").value;
    const t = Object.entries(data.titles_now || {});
    const masta_ = (t.find(([, x]) => x === "MASTA") || [""])[0], sh = (t.find(([, x]) => x === "SHITHEAD") || [""])[0];
    const [player, to] = kind === "best_card" ? [sh, masta_] : [masta_, sh];
    post("/evening/api/events", { type: "duty", duty: kind, player, to, card: document.getElementById("duty-card").value });
  });

  render(data);
  const reload = () => get("/evening/data.json").then((d) => { data = d; render(d); });
  listen({ update: reload, open: reload });  // open: what was pushed while the stream was down
})();
