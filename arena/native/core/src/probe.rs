//! What a differential test holds against the reference, by name (the binding's `_probe`
//! hands the test's argument over as JSON and the answer back): the options table read
//! alike and Python's generator reproduced draw for draw.  Kept in the core, beside what it
//! probes, so the binding only converts.

use crate::actions;
use crate::bots::features::{features, FEATURES};
use crate::bots::heuristics::{card_points, Cache};
use crate::bots::learned::Mlp;
use crate::error::Error;
use crate::json::Json;
use crate::options::{RuleOptions, TABLE};
use crate::rng::PyRandom;
use crate::seeds;

/// The probe `name` of `arg`: `options_from_dict` (the dict of `to_dict`, back),
/// `options_from_pairs` (`NAME=VALUE` texts), `option_names` (the table's order),
/// `random_draws` (`[seed, calls]`: `random.Random(seed)`'s draws as the core makes them,
/// each call `[method, n]`: `getrandbits k`, `random`, `randbelow n`, `shuffle n` (the
/// permutation of range(n)), `choice n` (the index)); `derive_seed` (the parts' texts) and
/// `bot_seed` (`[game seed, seat, participant]`), `arena.play.seeds`'s; `action_text` (an
/// action's notation) and `parse_action` (a notation's action), docs/notation.md's;
/// `bot_params` (a native bot's declared parameters, `ParamDecl::to_json`'s rows, held
/// against `arena/data/bot_params.json` as Python reads it); `value_features` (`[position,
/// seat]`: the learned value's features of that seat) and `value_logit` (`[weights text,
/// features]`: the net's logit), held against the training script's numpy.
pub fn probe(name: &str, arg: &Json) -> Result<Json, Error> {
    match name {
        "options_from_dict" => Ok(RuleOptions::from_dict(arg)?.to_dict(false)),
        "options_from_pairs" => {
            let pairs: Vec<&str> = arg
                .as_list()
                .unwrap_or(&[])
                .iter()
                .map(|p| p.as_str().ok_or_else(|| Error::value("pairs are texts")))
                .collect::<Result<_, _>>()?;
            Ok(RuleOptions::from_pairs(&pairs)
                .map_err(Error::option)?
                .to_dict(false))
        }
        "option_names" => Ok(Json::List(
            TABLE
                .specs
                .iter()
                .map(|s| Json::Str(s.name.clone()))
                .collect(),
        )),
        "random_draws" => random_draws(arg).ok_or_else(|| Error::value("[seed, [[method, n]]]")),
        "derive_seed" => {
            let parts: Option<Vec<&str>> = arg
                .as_list()
                .unwrap_or(&[])
                .iter()
                .map(Json::as_str)
                .collect();
            let parts = parts.ok_or_else(|| Error::value("parts are texts"))?;
            Ok(Json::Int(seeds::derive_seed(&parts).into()))
        }
        "bot_seed" => bot_seed(arg).ok_or_else(|| Error::value("[game seed, seat, participant]")),
        "action_text" => {
            let action = arg.as_int().and_then(|a| u64::try_from(a).ok());
            action
                .and_then(actions::try_text)
                .map(Json::Str)
                .ok_or_else(|| Error::value(format!("not an action: {}", arg.dump())))
        }
        "parse_action" => Ok(Json::Int(
            actions::parse(arg.as_str().unwrap_or(""))?.into(),
        )),
        "bot_params" => {
            let entry = arg.as_str().and_then(|name| crate::bots::entry(name, true));
            let entry =
                entry.ok_or_else(|| Error::value(format!("no native bot {}", arg.dump())))?;
            Ok(Json::List(
                entry.params().iter().map(|p| p.to_json()).collect(),
            ))
        }
        "value_features" => value_features(arg),
        "value_logit" => value_logit(arg),
        other => Err(Error::value(format!("no probe {other}"))),
    }
}

fn value_features(arg: &Json) -> Result<Json, Error> {
    let Some([position, seat]) = arg.as_list() else {
        return Err(Error::value("[position, seat]"));
    };
    let state = crate::position::from_position(position)?;
    let seat = seat.as_int().and_then(|s| u8::try_from(s).ok());
    let seat = seat.filter(|&s| s < state.b.players);
    let seat = seat.ok_or_else(|| Error::value("no such seat in this game"))?;
    let mut out = [0.0f32; FEATURES];
    let points = card_points(&state.b);
    features(&state, seat, &mut Cache::new(), &points, &mut out);
    Ok(Json::List(
        out.iter().map(|&v| Json::Float(v.into())).collect(),
    ))
}

fn value_logit(arg: &Json) -> Result<Json, Error> {
    let Some([weights, x]) = arg.as_list() else {
        return Err(Error::value("[weights text, features]"));
    };
    let net = Mlp::from_json(weights.as_str().unwrap_or("")).map_err(Error::value)?;
    let number = |v: &Json| match v {
        Json::Float(f) => Some(*f as f32),
        v => v.as_int().map(|i| i as f32),
    };
    let x: Option<Vec<f32>> = x.as_list().unwrap_or(&[]).iter().map(number).collect();
    let x: [f32; FEATURES] = x
        .and_then(|x| x.try_into().ok())
        .ok_or_else(|| Error::value(format!("{FEATURES} features expected")))?;
    Ok(Json::Float(net.logit(&x).into()))
}

fn bot_seed(arg: &Json) -> Option<Json> {
    let [seed, seat, name] = arg.as_list()? else {
        return None;
    };
    let seat = u8::try_from(seat.as_int()?).ok()?;
    Some(Json::Int(
        seeds::bot_seed(seed.as_int()?, seat, name.as_str()?).into(),
    ))
}

fn random_draws(arg: &Json) -> Option<Json> {
    let [seed, calls] = arg.as_list()? else {
        return None;
    };
    let mut r = PyRandom::new(seed.as_int()?);
    let mut out = Vec::new();
    for call in calls.as_list()? {
        let [method, n] = call.as_list()? else {
            return None;
        };
        let n = u64::try_from(n.as_int()?).ok()?;
        out.push(match method.as_str()? {
            "getrandbits" => Json::Int(r.getrandbits(n as u32) as i128),
            "random" => Json::Float(r.random()),
            "randbelow" => Json::Int(r.randbelow(n).into()),
            "choice" => Json::Int(r.choice_index(n as usize) as i128),
            "shuffle" => {
                let mut items: Vec<u32> = (0..n as u32).collect();
                r.shuffle(&mut items);
                Json::List(items.into_iter().map(|i| Json::Int(i.into())).collect())
            }
            _ => return None,
        });
    }
    Some(Json::List(out))
}
