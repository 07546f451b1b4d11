(function(){
const BOARDS = DATA.boards, PANELS = DATA.panels, FRAMES = DATA.frames;
const last = FRAMES.length - 1;
const slider = document.getElementById('slider');
const board = document.getElementById('board');
const panel = document.getElementById('panel');
const events = document.getElementById('events');
const next = document.getElementById('next');
const where = document.getElementById('where');
const marker = document.getElementById('round-marker');
let step = 0, timer = null;
slider.max = last;
function show(k){
  step = Math.max(0, Math.min(last, k));
  const f = FRAMES[step];
  board.innerHTML = BOARDS[f.b];
  panel.innerHTML = PANELS[f.p];
  events.innerHTML = f.e.length ? f.e.join('') : '<li class="chance">nothing yet</li>';
  next.innerHTML = f.n ? '<b>next choice</b><ul>' + f.n + '</ul>'
                       : '<b>the game is over</b>';
  slider.value = step;
  where.textContent = 'step ' + step + ' / ' + last + ' · round ' + f.r;
  if (marker){
    const left = +marker.dataset.left, width = +marker.dataset.width, lastRound = +marker.dataset.last;
    const x = left + width * (f.r - 1) / Math.max(1, lastRound - 1);
    marker.setAttribute('x1', x); marker.setAttribute('x2', x);
  }
  if (history.replaceState) history.replaceState(null, '', '#step=' + step);
  document.body.dataset.step = step;
}
function play(){
  if (timer){ clearInterval(timer); timer = null; document.getElementById('play').textContent = '▶ play'; return; }
  document.getElementById('play').textContent = '❚❚ pause';
  timer = setInterval(function(){ if (step >= last){ play(); } else { show(step + 1); } }, 600);
}
function roundStart(dir){
  const r = FRAMES[step].r;
  let k = step;
  if (dir > 0){ while (k < last && FRAMES[k].r === r) k++; }
  else { k--; while (k > 0 && FRAMES[k - 1].r === FRAMES[Math.max(0, k)].r) k--; }
  show(k);
}
document.getElementById('first').onclick = function(){ show(0); };
document.getElementById('prev').onclick = function(){ show(step - 1); };
document.getElementById('next-btn').onclick = function(){ show(step + 1); };
document.getElementById('last').onclick = function(){ show(last); };
document.getElementById('prev-round').onclick = function(){ roundStart(-1); };
document.getElementById('next-round').onclick = function(){ roundStart(1); };
document.getElementById('play').onclick = play;
slider.oninput = function(){ show(+slider.value); };
document.addEventListener('keydown', function(e){
  if (e.target === slider && (e.key === 'ArrowLeft' || e.key === 'ArrowRight')) { e.preventDefault(); }
  if (e.key === 'ArrowRight') show(step + 1);
  else if (e.key === 'ArrowLeft') show(step - 1);
  else if (e.key === 'ArrowUp' || e.key === 'PageDown') roundStart(1);
  else if (e.key === 'ArrowDown' || e.key === 'PageUp') roundStart(-1);
  else if (e.key === 'Home') show(0);
  else if (e.key === 'End') show(last);
  else if (e.key === ' ') { e.preventDefault(); play(); }
  else if (e.key === 'Escape') hideTip();
  else return;
});
// a card chip pointed at (or focused) shows the card's drawing from the gallery
const tip = document.getElementById('card-tip');
function showTip(chip){
  const fig = document.getElementById('card-' + chip.dataset.card);
  if (!tip || !fig){ return; }
  tip.innerHTML = fig.querySelector('svg').outerHTML;
  tip.hidden = false;
  const r = chip.getBoundingClientRect(), w = tip.offsetWidth, h = tip.offsetHeight;
  const x = Math.max(4, Math.min(r.left, window.innerWidth - w - 4));
  let y = r.bottom + 6;
  if (y + h > window.innerHeight - 4) y = Math.max(4, r.top - h - 6);
  tip.style.left = x + 'px'; tip.style.top = y + 'px';
  tip.dataset.card = chip.dataset.card;
}
function hideTip(){ if (tip){ tip.hidden = true; tip.dataset.card = ''; } }
function chipOf(e){ return e.target.closest ? e.target.closest('.chip[data-card]') : null; }
document.addEventListener('mouseover', function(e){ const c = chipOf(e); if (c) showTip(c); else hideTip(); });
document.addEventListener('focusin', function(e){ const c = chipOf(e); if (c) showTip(c); });
document.addEventListener('focusout', hideTip);
window.addEventListener('scroll', hideTip, {passive: true});
function fromHash(){
  const m = /step=(\d+)/.exec(location.hash);
  return m ? +m[1] : 0;
}
window.addEventListener('hashchange', function(){ show(fromHash()); });
show(fromHash());
document.body.dataset.ready = '1';
})();
