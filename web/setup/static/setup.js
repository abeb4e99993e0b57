/* Set-up page: new game, rules in words, house presets, camera source, pot zone. */
"use strict";
(() => {
  const { post, get, toast } = masta;
  const $ = (id) => document.getElementById(id);

  async function showRules() {
    const name = $("preset").value;
    const r = await fetch("/setup/rules/" + encodeURIComponent(name) + ".json");
    const d = await r.json();
    $("words").textContent = r.ok ? d.words : d.error;
    if (r.ok && !$("house-toml").value) $("house-toml").value = 'extends = "' + name + '"\nname = "our-house"\ntitle = "Our house rules"\n\n[table]\n# voluntary_pickup = true\n';
  }
  $("preset").addEventListener("change", showRules);
  showRules();

  $("game-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const r = await post("/setup/api/game", {
      players: $("players").value, dealer: $("dealer").value || null, preset: $("preset").value,
      decks: Number($("decks").value || 1),
    });
    if (r.ok) { toast("Game " + r.body.event.game + " set up"); setTimeout(() => { location.href = "/live/"; }, 600); }
  });
  $("house-save").addEventListener("click", async () => {
    const r = await post("/setup/api/preset", { name: $("house-name").value, toml: $("house-toml").value });
    if (r.ok) { toast("Saved preset " + r.body.name); setTimeout(() => location.reload(), 600); }
  });
  $("source-save").addEventListener("click", async () => {
    const r = await post("/setup/api/camera", { source: $("source").value });
    if (r.ok) toast(r.body.message);
  });
  $("evening-new").addEventListener("click", async () => {
    if (!confirm("Start a new evening? The current one is kept in Export.")) return;
    const r = await post("/setup/api/evening", { name: $("evening-name").value });
    if (r.ok) location.reload();
  });

  // The pot zone, and optionally each player's side: drag a rectangle on the snapshot; saved as
  // fractions of the frame.
  const img = $("snap"), cv = $("zone"), ctx = cv.getContext("2d"), mode = $("zone-mode");
  let zone = JSON.parse(cv.dataset.zone || "null"), seats = JSON.parse(cv.dataset.seats || "{}"), drag = null;
  // the sides masta proposes from where the first plays' arms came in: dashed, to accept or move
  let proposal = JSON.parse(cv.dataset.proposal || "{}");
  const box = (z, color, label) => {
    ctx.strokeStyle = color; ctx.lineWidth = 3;
    ctx.strokeRect(z[0] * cv.width, z[1] * cv.height, (z[2] - z[0]) * cv.width, (z[3] - z[1]) * cv.height);
    if (label) { ctx.fillStyle = color; ctx.font = "bold 14px sans-serif"; ctx.fillText(label, z[0] * cv.width + 5, z[1] * cv.height + 17); }
  };
  function draw() {
    ctx.clearRect(0, 0, cv.width, cv.height);
    ctx.setLineDash([8, 6]);
    for (const [name, z] of Object.entries(proposal.seats || {})) if (!seats[name]) box(z, "#c9f29b", name + "?");
    ctx.setLineDash([]);
    for (const [name, z] of Object.entries(seats)) box(z, "#7fd8ff", name);
    if (zone) box(zone, "#ffd34d", "pot");
  }
  const drawing = () => mode.value;  // "" the pot, else a player's name
  mode.addEventListener("change", () => { $("zone-save").textContent = drawing() ? "Save " + drawing() + "'s side" : "Save pot zone"; });
  img.addEventListener("load", () => {
    img.hidden = false; $("snap-status").hidden = true;
    cv.width = img.clientWidth; cv.height = img.clientHeight; $("zone-save").disabled = false; draw();
  });
  img.src = "/live/frame.jpg?" + Date.now();
  const frac = (e) => { const r = cv.getBoundingClientRect(); return [Math.min(1, Math.max(0, (e.clientX - r.left) / r.width)), Math.min(1, Math.max(0, (e.clientY - r.top) / r.height))]; };
  cv.addEventListener("pointerdown", (e) => { drag = frac(e); cv.setPointerCapture(e.pointerId); });
  cv.addEventListener("pointermove", (e) => {
    if (!drag) return; const p = frac(e);
    const z = [Math.min(drag[0], p[0]), Math.min(drag[1], p[1]), Math.max(drag[0], p[0]), Math.max(drag[1], p[1])];
    if (drawing()) seats[drawing()] = z; else zone = z;
    draw();
  });
  cv.addEventListener("pointerup", () => { drag = null; });
  $("zone-save").addEventListener("click", async () => {
    if (drawing()) {
      const r = await post("/setup/api/seat-zones", { seats });
      if (r.ok) { seats = r.body.seats; $("seats-clear").hidden = false; toast(drawing() + "'s side saved"); draw(); }
      return;
    }
    const r = await post("/setup/api/pot-zone", { zone });
    if (r.ok) toast("Pot zone saved");
  });
  $("seats-accept").addEventListener("click", async () => {
    const r = await post("/setup/api/seat-zones", { seats: Object.assign({}, proposal.seats || {}, seats) });
    if (r.ok) { seats = r.body.seats; $("seats-clear").hidden = false; toast("The proposed sides are saved"); draw(); }
  });
  get("/setup/api/seat-proposal").then((p) => {
    if (!p || !p.seats) return;
    proposal = p; $("seats-accept").hidden = false;
    $("proposal-status").hidden = false;
    $("proposal-status").textContent = "Sides proposed from the arms of the first " + p.plays + " play(s).";
    draw();
  }).catch(() => {});
  $("seats-clear").addEventListener("click", async () => {
    const r = await post("/setup/api/seat-zones", { seats: {} });
    if (r.ok) { seats = {}; $("seats-clear").hidden = true; toast("The sides are cleared"); draw(); }
  });
})();
