// The token the lens follows: the read-out's target, or another the reader chose in the select beside the lens
// (the followed token, then the chosen cell's TOP_K most likely) or by clicking one of those in the lens.
import {describe} from '../shared/charts.js';
import {FOLLOW_NAME, LIVE_FOLLOW, POSITION} from '../shared/names.js';
import {followRows, followedOf, result, topIdsAt} from './datasets.js';
import {inTurn, infer} from './model.js';
import {descriptionOf, page, setState} from './page.js';
import {state} from './state.js';
import {tokenName} from './tokens.js';

// The token the lens follows for this result.
export function lensToken(res) {
  return state.lensChoice !== null && followedOf(res, state.lensChoice) ? state.lensChoice : res.target;
}

function lensElement() {
  return page.charts.filter((el) => el.getAttribute('data-live-chart') === 'lens')[0];
}

// The select beside the lens: the followed token, then the chosen cell's most likely tokens.
export function offerFollows() {
  const el = lensElement(), res = page.live.result, {followLine, followSelect} = page.el;
  if (!el || !el.vegaView || !res || !followSelect) return;
  const view = el.vegaView, n = res.ids.length;
  const stage = view.signal('stage'), q = Math.min(Math.max(view.signal(POSITION), 1), n) - 1;
  const now = lensToken(res), ids = [now];
  topIdsAt(res, stage, q).forEach((id) => {
    if (ids.indexOf(id) < 0) ids.push(id);
  });
  followSelect.textContent = '';
  ids.forEach((id, i) => {
    const option = document.createElement('option');
    option.value = String(id);
    option.textContent = i === 0 ? tokenName(id) + ' (followed now)' : tokenName(id);
    followSelect.appendChild(option);
  });
  followSelect.value = String(now);
  followLine.hidden = false;
}

// The lens's `follow` and `follow_name` changed in place (its other choices stay), and what the page keeps of them.
async function showFollowed(el, res, id) {
  const rows = followRows(res, id, page.shape), view = el.vegaView;
  view.change(LIVE_FOLLOW, view.changeset().remove(() => true).insert(rows));
  view.signal(FOLLOW_NAME, tokenName(id));
  await view.runAsync();
  const drawn = page.live.drawn.lens;
  drawn.datasets.follow = rows;
  drawn.follow_name = tokenName(id);
  drawn.followed = id;
  el.given.datasets.follow = rows;
  el.given.followName = tokenName(id);
  el.given.followed = id;
  describe(descriptionOf(el), view);
  offerFollows();
}

// Follows another token in the lens: the model runs again with it where the last run did not follow it.
export function followToken(id) {
  const res = page.live.result;
  if (!res || !state.session || id === lensToken(res)) return Promise.resolve();
  state.lensChoice = id;
  const number = ++state.follows;
  return inTurn(async () => {
    if (number !== state.follows || page.live.result !== res) return;
    if (!followedOf(res, id)) {
      setState('running');
      const out = await infer(res.ids, [res.target, id]);
      res.followed = result(res.text, res.ids, res.target, [res.target, id], out, page.shape).followed;
    }
    const el = lensElement();
    if (!el || !el.vegaView) return;
    await showFollowed(el, res, id);
    if (state.finished === state.runs) setState('drawn');
  });
}
