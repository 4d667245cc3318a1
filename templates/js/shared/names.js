// The names the pages' scripts share with the figures' Python. Written by figsite/data/shared_names.py:
//   python -m figsite.data.shared_names > templates/js/shared/names.js
// Do not edit: change shared_names.py and write it again (tests/unit/test_shared_names.py checks it).

export const TOKEN_PARAMS = ["token", "position", "from"];
export const TOKEN = "token";
export const POSITION = "position";
export const FROM = "from";
export const LOOKED_AT = "to";
export const TOKEN_SELECTS = ["token", "position", "from", "to"];
export const DESCRIPTION = "description";
export const KEY_WORDS = "key_words";
export const VIEW = "view";
export const NAMES = "names";
export const OWN_FROM = "own_from";
export const LEFT_OUT_SIGNAL = "left_out";
export const SHARES = "shares";
export const HEAD_PICTURES = "head_pictures";
export const PICTURE_PALETTE = "picture_palette";
export const NOTEBOOK_CALLBACK = "figsiteNotebook";
export const NOTEBOOK_STATE = "STATE = {}";
export const ATTENTION_META = "attention";
export const LOADS_META = "loads";
export const RENDERER_META = "renderer";
export const CLICKS_META = "clicks";
export const WITHIN_META = "within";
export const PICK = "pick_";
export const BACKDROP = "backdrop";
export const NARROW_PX = 480;
export const SCROLL_HINT = {"mouse": "Scroll sideways", "touch": "Swipe sideways", "columns": " to see every position", "whole": " to see the whole chart"};
export const LEFT_OUT = "0.5%";
export const MIN_SHARE = 0.005;
export const TOP_K = 10;
export const PER_SHARE = 10000;
export const LIVE_DATASETS = {"panels": ["l", "h", "u"], "top": ["stage", "q", "rank", "token", "id", "p"], "follow": ["stage", "q", "p", "rank"], "cells": ["stage", "position", "token", "distance", "name"], "runs": ["key", "group", "x", "layer", "name", "part_name", "p", "rank", "dp", "dr"], "patched": ["key", "piece", "row", "col", "diff", "p"]};
export const LIVE_TABLES = {"shares": ["layer", "head", "position", "token", "looks_at_position", "looks_at_token", "share"], "top": ["after_layer", "position", "token", "rank", "next_token_id", "next_token", "probability"], "followed": ["followed_id", "followed_token", "after_layer", "position", "token", "probability", "rank"], "distances": ["after_layer", "position", "token_a", "token_b", "distance"], "taken_out": ["taken_out", "layer", "head", "probability", "rank"], "put_back": ["piece", "after_layer", "layer", "position", "head", "score_difference", "back", "probability"]};
export const LIVE_PANELS = "panels";
export const LIVE_TOP = "top";
export const LIVE_FOLLOW = "follow";
export const FOLLOW_NAME = "follow_name";
export const PIECE_KEYS = {"resid_pre": "stream", "attn_out": "attention", "mlp_out": "feed-forward", "z": "head"};
export const NEAR = 0.001;
export const PATCH_CHOICE = "cell";
export const PATCH_OPENING = "strongest";
export const LIVE_PATCHED = "patched";
