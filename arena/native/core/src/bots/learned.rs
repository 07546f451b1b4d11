//! `learned`: one ply on a value learned from self-play (issue 51).
//!
//! Why: the hand-made evaluation caps every search built on it (`docs/experiments.md`), so
//! the value here is a small multilayer perceptron trained on the outcomes of many games
//! (`scripts/train_value.py`), reading the [`features`](super::features) of a position as
//! the deciding seat may see it.  The bot samples full states consistent with its view
//! (`determinize`), tries every legal action on each, looks through the follow-up steps of
//! the same move (`place` after `plot`, the weather's effects), and keeps the action whose
//! result the net gives the highest chance of winning.  A satisfied objective is completed
//! first.
//!
//! The weights are data: `arena/data/value.json`, compiled in, with the SHA-256 of the
//! file recorded beside it (`arena/data/value.sha256`).  The format ([`Mlp::from_json`]):
//! `{"format": "takenoko-value/1", "features": [names], "mean": [..], "scale": [..],
//! "layers": [{"w": [[..] per output], "b": [..]}, ..]}`, ReLU between layers, the last
//! layer one output: the logit of the chance to win.

use std::sync::{Arc, OnceLock};

use crate::actions::Action;
use crate::json::{parse, Json};
use crate::rng::PyRandom;
use crate::state::State;
use crate::view::View;

use super::declared;
use super::draws::BotDraws;
use super::features::{features, FEATURES, NAMES};
use super::greedy::one_ply;
use super::heuristics::Cache;
use super::registry::{BotEntry, Params};
use super::seated::{Decider, Seated};
use super::Bot;

/// The weights the bot plays with unless given others (trained by `scripts/train_value.py`).
pub const VALUE_JSON: &str = include_str!("../../../../data/value.json");
/// The widest layer a weights file may have (inputs included).
pub const MAX_WIDTH: usize = 256;
/// The format the weights file declares.
pub const FORMAT: &str = "takenoko-value/1";

/// `learned` in the registry.
pub const ENTRY: BotEntry = BotEntry {
    name: "learned",
    class: "LearnedBot",
    declared: || declared::of("learned"),
    make,
    test_only: false,
};

/// One dense layer: `w` column-major, one column of outputs per input (the file's rows
/// transposed), so that [`Mlp::logit`] adds one input's products into every output at once:
/// each output's sum still runs over the inputs in their order, the same float additions
/// as a row-by-row dot product, but a loop over outputs the compiler can vectorise.
#[derive(Clone, Debug, PartialEq)]
struct Layer {
    inputs: usize,
    outputs: usize,
    w: Vec<f32>,
    b: Vec<f32>,
}

/// The learned value: standardisation, then dense layers with ReLU between them.
#[derive(Clone, Debug, PartialEq)]
pub struct Mlp {
    mean: Vec<f32>,
    scale: Vec<f32>,
    layers: Vec<Layer>,
}

fn floats(v: Option<&Json>, what: &str) -> Result<Vec<f32>, String> {
    let list = v
        .and_then(Json::as_list)
        .ok_or_else(|| format!("{what} is not a list"))?;
    list.iter()
        .map(|x| match x {
            Json::Float(f) => Ok(*f as f32),
            Json::Int(i) => Ok(*i as f32),
            _ => Err(format!("{what} holds something other than numbers")),
        })
        .collect()
}

impl Mlp {
    /// The net of a weights file; refused (with what is wrong) when it is not of this
    /// format, names other features than [`NAMES`], or its shapes do not chain.
    pub fn from_json(text: &str) -> Result<Mlp, String> {
        let d = parse(text)?;
        if d.get("format").and_then(Json::as_str) != Some(FORMAT) {
            return Err(format!("the weights are not of format {FORMAT}"));
        }
        let names: Vec<&str> = d
            .get("features")
            .and_then(Json::as_list)
            .ok_or("the weights name no features")?
            .iter()
            .map(|n| n.as_str().unwrap_or(""))
            .collect();
        if names != NAMES {
            return Err("the weights were trained on other features than the core's".into());
        }
        let mean = floats(d.get("mean"), "mean")?;
        let scale = floats(d.get("scale"), "scale")?;
        if mean.len() != FEATURES || scale.len() != FEATURES {
            return Err(format!("mean and scale must have {FEATURES} values"));
        }
        let mut layers = Vec::new();
        let mut inputs = FEATURES;
        for (i, layer) in d
            .get("layers")
            .and_then(Json::as_list)
            .ok_or("the weights have no layers")?
            .iter()
            .enumerate()
        {
            let rows = layer
                .get("w")
                .and_then(Json::as_list)
                .ok_or_else(|| format!("layer {i} has no w"))?;
            let mut w = Vec::with_capacity(rows.len() * inputs);
            for row in rows {
                let row = floats(Some(row), &format!("a row of layer {i}"))?;
                if row.len() != inputs {
                    return Err(format!(
                        "layer {i} takes {} inputs, not {inputs}",
                        row.len()
                    ));
                }
                w.extend(row);
            }
            if rows.len() > MAX_WIDTH {
                return Err(format!("layer {i} is wider than {MAX_WIDTH}"));
            }
            let b = floats(layer.get("b"), &format!("b of layer {i}"))?;
            if b.len() != rows.len() {
                return Err(format!(
                    "layer {i} has {} biases for {} outputs",
                    b.len(),
                    rows.len()
                ));
            }
            let outputs = rows.len();
            let columns = (0..inputs * outputs)
                .map(|k| w[(k % outputs) * inputs + k / outputs])
                .collect();
            layers.push(Layer {
                inputs,
                outputs,
                w: columns,
                b,
            });
            inputs = rows.len();
        }
        if layers.is_empty() || inputs != 1 {
            return Err("the last layer must have one output".into());
        }
        Ok(Mlp {
            mean,
            scale,
            layers,
        })
    }

    /// The net's output for the position these features describe (the logit of the chance
    /// to win, or the expected lead, as it was trained).  No allocation: layers are at most
    /// [`MAX_WIDTH`] wide and computed on the stack.
    pub fn logit(&self, x: &[f32; FEATURES]) -> f32 {
        let mut a = [0.0f32; MAX_WIDTH];
        let mut next = [0.0f32; MAX_WIDTH];
        for (i, v) in x.iter().enumerate() {
            a[i] = (v - self.mean[i]) * self.scale[i];
        }
        let last = self.layers.len() - 1;
        for (k, layer) in self.layers.iter().enumerate() {
            let input = &a[..layer.inputs];
            for start in (0..layer.outputs).step_by(LANES) {
                let sums = if layer.outputs - start >= LANES {
                    dense_lanes(layer, input, start)
                } else {
                    let mut sums = [0.0f32; LANES];
                    for (i, &v) in input.iter().enumerate() {
                        let column = &layer.w[i * layer.outputs..(i + 1) * layer.outputs];
                        for (sum, w) in sums.iter_mut().zip(&column[start..]) {
                            *sum += w * v;
                        }
                    }
                    sums
                };
                let end = (start + LANES).min(layer.outputs);
                for (o, out) in next[start..end].iter_mut().enumerate() {
                    let sum = sums[o] + layer.b[start + o];
                    *out = if k < last { sum.max(0.0) } else { sum };
                }
            }
            std::mem::swap(&mut a, &mut next);
        }
        a[0]
    }
}

/// Outputs a layer sums at once (in registers) in [`Mlp::logit`].
const LANES: usize = 16;

/// The sums of `LANES` outputs from `start` over all inputs, each in input order (the
/// accumulators a fixed-size array the compiler keeps in vector registers).
fn dense_lanes(layer: &Layer, input: &[f32], start: usize) -> [f32; LANES] {
    let mut sums = [0.0f32; LANES];
    for (i, &v) in input.iter().enumerate() {
        let at = i * layer.outputs + start;
        let column: &[f32; LANES] = layer.w[at..at + LANES].try_into().expect("LANES floats");
        for (sum, w) in sums.iter_mut().zip(column) {
            *sum += w * v;
        }
    }
    sums
}

// The inputs fit the stack buffers of `Mlp::logit`.
const _: () = assert!(FEATURES <= MAX_WIDTH);

/// The compiled-in net (parsed once).
pub fn builtin() -> Arc<Mlp> {
    static NET: OnceLock<Arc<Mlp>> = OnceLock::new();
    NET.get_or_init(|| {
        Arc::new(Mlp::from_json(VALUE_JSON).expect("arena/data/value.json is a weights file"))
    })
    .clone()
}

/// The decision procedure of `learned`, apart from its generator.
pub struct Learned {
    pub samples: u32,
    pub net: Arc<Mlp>,
    cache: Cache,
    x: [f32; FEATURES],
}

impl Learned {
    pub fn new(samples: u32, net: Arc<Mlp>) -> Learned {
        Learned {
            samples,
            net,
            cache: Cache::new(),
            x: [0.0; FEATURES],
        }
    }

    /// The net's logit for `seat` on `state`.
    pub fn value(&mut self, state: &State, seat: u8, points: &[f64]) -> f64 {
        features(state, seat, &mut self.cache, points, &mut self.x);
        self.net.logit(&self.x) as f64
    }

    /// One of `legal` (not empty) for the view's seat: the net's value after each action,
    /// through `greedy::one_ply` (a finished game's verdict beyond any logit).
    pub fn choose<R: BotDraws>(
        &mut self,
        view: &View,
        legal: &[Action],
        points: &[f64],
        rng: &mut R,
    ) -> Action {
        let seat = view.seat;
        one_ply(view, legal, self.samples, rng, &mut |child| {
            if child.is_terminal() {
                return if child.result(&[]).winners.contains(&seat) {
                    1e6
                } else {
                    -1e6
                };
            }
            self.value(child, seat, points)
        })
    }
}

impl Decider for Learned {
    fn decide<R: BotDraws>(
        &mut self,
        view: &View,
        legal: &[Action],
        points: &[f64],
        rng: &mut R,
    ) -> Action {
        self.choose(view, legal, points, rng)
    }
}

/// `learned` with the compiled-in weights (the registry's factory).
fn make(params: &Params, rng: PyRandom) -> Box<dyn Bot> {
    let learned = Learned::new(params.int("samples") as u32, builtin());
    Seated::boxed(learned, rng)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_weights_load() {
        let net = builtin();
        assert!(net.logit(&[0.0; FEATURES]).is_finite());
    }

    #[test]
    fn refuses_weights_for_other_features() {
        let text = VALUE_JSON.replacen("\"score\"", "\"scores\"", 1);
        let err = Mlp::from_json(&text).unwrap_err();
        assert!(err.contains("other features"), "{err}");
    }

    /// A layer as the file writes it: rows of weights, one per output, and the biases.
    type Rows = (Vec<Vec<f32>>, Vec<f32>);

    /// The file's mean, scale and layers as rows, for a dot product the plain way.
    fn rows_of(text: &str) -> (Vec<f32>, Vec<f32>, Vec<Rows>) {
        let d = parse(text).unwrap();
        let layers = d.get("layers").and_then(Json::as_list).unwrap();
        let layers = layers
            .iter()
            .map(|l| {
                let rows = l.get("w").and_then(Json::as_list).unwrap();
                let rows = rows
                    .iter()
                    .map(|r| floats(Some(r), "row").unwrap())
                    .collect();
                (rows, floats(l.get("b"), "b").unwrap())
            })
            .collect();
        let mean = floats(d.get("mean"), "mean").unwrap();
        (mean, floats(d.get("scale"), "scale").unwrap(), layers)
    }

    #[test]
    fn the_logit_is_the_row_by_row_dot_product_to_the_bit() {
        // Why: the column-major loop must not change a single decision of the bot.
        let net = builtin();
        let (mean, scale, layers) = rows_of(VALUE_JSON);
        let mut rng = PyRandom::new(7);
        for _ in 0..200 {
            let mut x = [0.0f32; FEATURES];
            for v in x.iter_mut() {
                *v = rng.randbelow(2000) as f32 / 1000.0 - 0.5;
            }
            let mut a: Vec<f32> = (0..FEATURES).map(|i| (x[i] - mean[i]) * scale[i]).collect();
            for (k, (rows, b)) in layers.iter().enumerate() {
                a = rows
                    .iter()
                    .zip(b)
                    .map(|(row, b)| {
                        let sum = b + row.iter().zip(&a).map(|(w, v)| w * v).sum::<f32>();
                        if k + 1 < layers.len() {
                            sum.max(0.0)
                        } else {
                            sum
                        }
                    })
                    .collect();
            }
            assert_eq!(net.logit(&x).to_bits(), a[0].to_bits());
        }
    }

    #[test]
    fn a_linear_net_computes_its_sum() {
        let names: Vec<String> = NAMES.iter().map(|n| format!("\"{n}\"")).collect();
        let ones = vec!["1"; FEATURES].join(",");
        let zeros = vec!["0"; FEATURES].join(",");
        let text = format!(
            "{{\"format\": \"{FORMAT}\", \"features\": [{}], \"mean\": [{zeros}], \"scale\": [{ones}], \"layers\": [{{\"w\": [[{ones}]], \"b\": [0.5]}}]}}",
            names.join(",")
        );
        let net = Mlp::from_json(&text).unwrap();
        let mut x = [0.0; FEATURES];
        x[0] = 2.0;
        x[3] = -1.0;
        assert_eq!(net.logit(&x), 1.5);
    }
}
