// The live page's downloads (templates/js/live/downloads.js) of a small fake run: three CSV tables and the JSON.
import assert from 'node:assert/strict';
import {before, test} from 'node:test';

import {TOP_K} from '../../templates/js/shared/names.js';
import {result} from '../../templates/js/live/datasets.js';
import {asJson, csv, csvCell, followedCsv, sharesCsv, topCsv} from '../../templates/js/live/downloads.js';
import {IDS, OTHER, SHAPE, TARGET, fakeOutput, fakeTokens, share} from './live_fake.js';

before(() => { globalThis.liveTokens = fakeTokens; });

const SHA = 'ab'.repeat(32);

function fakeResult() {
  return result('a "text"', IDS, TARGET, [TARGET, OTHER], fakeOutput([TARGET, OTHER]), SHAPE);
}

// The CSV's lines, without the last line break.
function lines(text) {
  assert.ok(text.endsWith('\r\n'));
  return text.slice(0, -2).split('\r\n');
}

test('a CSV quotes every text, doubles its quotes, and keeps a spreadsheet from reading a formula', () => {
  assert.equal(csvCell(3), '3');
  assert.equal(csvCell('a"b'), '"a""b"');
  assert.equal(csvCell('=x'), '"\'=x"');
  assert.equal(csvCell('-1'), '"\'-1"');
  assert.equal(csvCell(-1), '-1');
  assert.equal(csv('a,b', [[1, 'x'], [2, 'y,z']]), 'a,b\r\n1,"x"\r\n2,"y,z"\r\n');
});

test('the shares table has one row per head, position and key up to it, counted from 1', () => {
  const rows = lines(sharesCsv(fakeResult(), SHAPE)), n = IDS.length;
  assert.equal(rows[0], 'layer,head,position,token,looks_at_position,looks_at_token,share');
  assert.equal(rows.length, 1 + SHAPE.nLayer * SHAPE.nHead * n * (n + 1) / 2);
  const last = rows[rows.length - 1];
  assert.equal(last, '2,2,3,"\'=x",3,"\'=x",' + (+Math.fround(share(1, 1, 2, 2)).toPrecision(9)));
});

test('the top table has the 10 most likely next tokens at every stage and position', () => {
  const rows = lines(topCsv(fakeResult(), SHAPE)), n = IDS.length;
  assert.equal(rows[0], 'after_layer,position,token,rank,next_token_id,next_token,probability');
  assert.equal(rows.length, 1 + SHAPE.stages * n * TOP_K);
  assert.equal(rows[1], '0,1,"_w11",1,100,"_t100",' + (+Math.fround(1 / 2).toPrecision(9)));
});

test('the followed table has each followed token at every stage and position', () => {
  const res = fakeResult(), rows = lines(followedCsv(res, SHAPE)), n = IDS.length;
  assert.equal(rows[0], 'followed_id,followed_token,after_layer,position,token,probability,rank');
  assert.equal(rows.length, 1 + 2 * SHAPE.stages * n);
  assert.equal(rows[1 + SHAPE.stages * n], '22,"a""b",0,1,"_w11",' + (+res.followed[1].p[0].toPrecision(9)) + ',' +
                                           res.followed[1].rank[0]);
});

test('the JSON holds the text, the tokens, every share, the top 10 and the followed tokens, counted from 0', () => {
  const res = fakeResult(), data = JSON.parse(asJson(res, SHAPE, OTHER, SHA)), n = IDS.length;
  assert.equal(data.format, 'gpt2-live/1');
  assert.deepEqual(data.model, {n_layer: 2, n_head: 2, graph_sha256: SHA});
  assert.equal(data.text, 'a "text"');
  assert.deepEqual(data.tokens, [{id: 11, text: ' w11'}, {id: 12, text: ' w12'}, {id: 13, text: '=x'}]);
  assert.deepEqual(data.attention[1][0][2], [0, 1, 2].map((k) => +Math.fround(share(1, 0, 2, k)).toPrecision(9)));
  assert.deepEqual(data.attention[0][1].map((row) => row.length), [1, 2, 3]);
  assert.equal(data.top.length, SHAPE.stages);
  assert.equal(data.top[2][1].length, TOP_K);
  assert.deepEqual(data.top[0][0][0], {id: 100, text: ' t100', p: 0.5});
  assert.deepEqual(data.followed.map((f) => [f.id, f.figures]), [[TARGET, ['readout']], [OTHER, ['lens']]]);
  assert.equal(data.followed[1].p.length, SHAPE.stages);
  assert.deepEqual(data.followed[1].rank[1], res.followed[1].rank.slice(n, 2 * n));
  // Followed by both figures where the lens follows the read-out's target.
  assert.deepEqual(JSON.parse(asJson(res, SHAPE, TARGET, SHA)).followed[0].figures, ['readout', 'lens']);
});
