//! The heuristics of the Rust bots against the values the Python reference computed on the
//! same positions (`scripts/heuristics_golden.py`): every float bit for bit, without Python.

use std::sync::Arc;

use takenoko::bots::heuristics::{
    self, actions_horizon, card_points, draw_value, evaluate, Cache, Pools, Snapshot, Weights,
};
use takenoko::components::{CardSet, COMPONENTS};
use takenoko::json::{self, Json};
use takenoko::options::RuleOptions;
use takenoko::{State, View};

const GOLDEN: &str = include_str!("data/heuristics_golden.json");

fn float(v: &Json) -> f64 {
    match v {
        Json::Float(f) => *f,
        Json::Int(i) => *i as f64,
        other => panic!("not a number: {other:?}"),
    }
}

fn list(v: Option<&Json>) -> &[Json] {
    v.and_then(Json::as_list).expect("a list")
}

/// Equal as the same double (the reference's `==` on floats that are never NaN).
fn same(got: f64, want: &Json, what: &str) {
    let want = float(want);
    assert!(
        got == want,
        "{what}: {got:?} (bits {:x}) where the reference has {want:?} (bits {:x})",
        got.to_bits(),
        want.to_bits()
    );
}

#[test]
fn heuristics_give_the_reference_values() {
    let data = json::parse(GOLDEN).expect("the golden file is JSON");
    let weighted_category = data
        .get("weighted_category")
        .and_then(Json::as_int)
        .unwrap() as u8;
    let weight = float(data.get("weight").unwrap());
    let other = Weights {
        score: 1.7,
        decay: 0.3,
        channel: 0.2,
        improvement: 0.45,
        spare_section: 0.2,
        race: 1.5,
    };
    let mut checked = 0;
    let mut cache = Cache::new();
    for (g, game) in list(data.get("games")).iter().enumerate() {
        let options = RuleOptions::from_dict(game.get("options").unwrap()).unwrap();
        let changes = game.get("card_set").unwrap();
        let cards = CardSet::from_changes(
            changes
                .get("points")
                .and_then(Json::as_object)
                .unwrap_or(&[]),
            changes.get("remove").and_then(Json::as_list).unwrap_or(&[]),
            changes.get("add"),
        )
        .unwrap();
        let int = |key: &str| game.get(key).and_then(Json::as_int).expect(key);
        let mut state = State::new(
            int("players") as usize,
            int("seed"),
            Arc::new(options),
            &[],
            false,
            Arc::new(cards),
        )
        .unwrap();
        let actions = list(game.get("actions"));
        let mut done = 0usize;
        for point in list(game.get("checkpoints")) {
            let at = point.get("at").and_then(Json::as_int).unwrap() as usize;
            while done < at {
                state.apply(actions[done].as_int().unwrap() as u32).unwrap();
                done += 1;
            }
            let points = card_points(&state.b);
            let weighted: Vec<f64> = points
                .iter()
                .enumerate()
                .map(|(c, &p)| {
                    if COMPONENTS.cards[c].category == weighted_category {
                        p * weight
                    } else {
                        p
                    }
                })
                .collect();
            let seat = point.get("seat").and_then(Json::as_int).unwrap() as u8;
            let view = View::of(&state, seat as i64).unwrap();
            let pools = Pools([0, 1, 2].map(|k| view.unseen_cards(k)));
            let denial = Pools([Vec::new(), pools.0[1].clone(), pools.0[2].clone()]);
            for (s, want) in list(point.get("seats")).iter().enumerate() {
                let s = s as u8;
                let at = |what: &str| format!("game {g}, action {done}, seat {s}: {what}");
                let d = Weights::default();
                same(
                    evaluate(&state, s, &d, None, &mut cache, &points),
                    want.get("evaluate").unwrap(),
                    &at("evaluate"),
                );
                same(
                    evaluate(&state, s, &other, None, &mut cache, &points),
                    want.get("other_weights").unwrap(),
                    &at("other weights"),
                );
                same(
                    evaluate(&state, s, &d, Some(2), &mut cache, &points),
                    want.get("horizon_2").unwrap(),
                    &at("horizon 2"),
                );
                same(
                    evaluate(&state, s, &other, None, &mut cache, &weighted),
                    want.get("weighted").unwrap(),
                    &at("weighted points"),
                );
                same(
                    evaluate(&view, s, &d, None, &mut cache, &points),
                    want.get("view_evaluate").unwrap(),
                    &at("on the view"),
                );
                let mut snap = Snapshot::new(&state, &mut cache, &points);
                let hand = state.hands[s as usize].clone();
                let (costs, _) = snap.costs(s, &hand);
                let want_costs = list(want.get("costs"));
                assert_eq!(costs.len(), want_costs.len(), "{}", at("costs"));
                for (&(card, cost), w) in costs.iter().zip(want_costs) {
                    let w = w.as_list().unwrap();
                    assert_eq!(
                        card as i128,
                        w[0].as_int().unwrap(),
                        "{}",
                        at("costs' order")
                    );
                    same(cost, &w[1], &at("a card's cost"));
                }
                for w in list(want.get("panda_alone")) {
                    let w = w.as_list().unwrap();
                    let card = w[0].as_int().unwrap() as u8;
                    same(snap.card_cost(s, card), &w[1], &at("a panda card alone"));
                }
                same(
                    snap.expected_hand_value(s, &pools, heuristics::DECAY, 0.0),
                    want.get("expected_hand").unwrap(),
                    &at("expected hand"),
                );
                same(
                    snap.expected_hand_value(s, &denial, 0.3, 1.5),
                    want.get("expected_hand_other").unwrap(),
                    &at("expected hand, other weights"),
                );
                assert_eq!(
                    actions_horizon(&state.b, s) as i128,
                    want.get("actions_horizon").and_then(Json::as_int).unwrap(),
                    "{}",
                    at("actions horizon")
                );
            }
            for (k, w) in list(point.get("draw")).iter().enumerate() {
                same(
                    draw_value(
                        &view,
                        seat,
                        k as u8,
                        heuristics::DECAY,
                        0.0,
                        &mut cache,
                        &points,
                    ),
                    w,
                    &format!("game {g}: draw {k}"),
                );
            }
            for (k, w) in list(point.get("draw_other")).iter().enumerate() {
                same(
                    draw_value(&view, seat, k as u8, 0.3, 1.5, &mut cache, &points),
                    w,
                    &format!("game {g}: draw {k}, other weights"),
                );
            }
            checked += 1;
            if checked % 7 == 0 {
                cache.clear(); // a cold cache gives the same values
            }
        }
    }
    assert!(checked >= 40, "{checked} positions checked");
}

#[test]
fn powf_exp_and_ln_are_the_c_librarys_as_in_cpython() {
    // Python's `x ** y`, `math.exp` and `math.log` on floats are the C library's; Rust's
    // powf, exp and ln call the same functions at run time: the same bits.
    let data = json::parse(GOLDEN).expect("the golden file is JSON");
    let libm = data.get("libm").expect("libm values");
    let rows = |key: &str| {
        list(libm.get(key))
            .iter()
            .map(|r| r.as_list().unwrap().to_vec())
            .collect::<Vec<_>>()
    };
    let pow = rows("pow");
    assert!(pow.len() > 1500);
    for r in &pow {
        same(
            float(&r[0]).powf(float(&r[1])),
            &r[2],
            &format!("{:?} ** {:?}", r[0], r[1]),
        );
    }
    for r in rows("exp") {
        same(float(&r[0]).exp(), &r[1], &format!("exp {:?}", r[0]));
    }
    for r in rows("log") {
        same(float(&r[0]).ln(), &r[1], &format!("log {:?}", r[0]));
    }
}
