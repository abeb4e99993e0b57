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

  // The pot zone: drag a rectangle on the snapshot; saved as fractions of the frame.
  const img = $("snap"), cv = $("zone"), ctx = cv.getContext("2d");
  let zone = JSON.parse(cv.dataset.zone || "null"), drag = null;
  function draw() {
    ctx.clearRect(0, 0, cv.width, cv.height);
    if (!zone) return;
    ctx.strokeStyle = "#ffd34d"; ctx.lineWidth = 3;
    ctx.strokeRect(zone[0] * cv.width, zone[1] * cv.height, (zone[2] - zone[0]) * cv.width, (zone[3] - zone[1]) * cv.height);
  }
  img.addEventListener("load", () => {
    img.hidden = false; $("snap-status").hidden = true;
    cv.width = img.clientWidth; cv.height = img.clientHeight; $("zone-save").disabled = false; draw();
  });
  img.src = "/live/frame.jpg?" + Date.now();
  const frac = (e) => { const r = cv.getBoundingClientRect(); return [Math.min(1, Math.max(0, (e.clientX - r.left) / r.width)), Math.min(1, Math.max(0, (e.clientY - r.top) / r.height))]; };
  cv.addEventListener("pointerdown", (e) => { drag = frac(e); cv.setPointerCapture(e.pointerId); });
  cv.addEventListener("pointermove", (e) => {
    if (!drag) return; const p = frac(e);
    zone = [Math.min(drag[0], p[0]), Math.min(drag[1], p[1]), Math.max(drag[0], p[0]), Math.max(drag[1], p[1])]; draw();
  });
  cv.addEventListener("pointerup", () => { drag = null; });
  $("zone-save").addEventListener("click", async () => {
    const r = await post("/setup/api/pot-zone", { zone });
    if (r.ok) toast("Pot zone saved");
  });
})();
