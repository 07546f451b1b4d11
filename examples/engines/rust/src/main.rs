//! A complete Takenoko engine in Rust, with no dependency: completes an objective when it
//! can, else plays a random legal action (the arena's `random:complete=true`).
//!
//! The protocol is JSON lines (docs/protocol.md).  The arena writes compact JSON and actions
//! in notation hold no quote or backslash, so the few fields this engine needs are found by
//! searching the line; a stronger engine would use a JSON library.
#![forbid(unsafe_code)]

use std::io::{self, BufRead, Write};

/// splitmix64: a small, good generator, seeded by each new game.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The text of the string field `key` in `line`.
fn string_field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let pattern = format!("\"{key}\":\"");
    let start = line.find(&pattern)? + pattern.len();
    let end = line[start..].find('"')?;
    Some(&line[start..start + end])
}

/// The number after `"key":` in `line`.
fn number_field(line: &str, key: &str) -> Option<u64> {
    let pattern = format!("\"{key}\":");
    let start = line.find(&pattern)? + pattern.len();
    let digits: String = line[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The strings of `"legal":[...]` (actions hold commas, never quotes).
fn legal_actions(line: &str) -> Vec<&str> {
    let Some(at) = line.find("\"legal\":[") else {
        return Vec::new();
    };
    let mut rest = &line[at + "\"legal\":[".len()..];
    let mut found = Vec::new();
    while let Some(body) = rest.strip_prefix('"') {
        let Some(end) = body.find('"') else { break };
        found.push(&body[..end]);
        rest = body[end + 1..].trim_start_matches(',');
    }
    found
}

/// The action to play: the first objective to complete, else a random one.
fn choose<'a>(legal: &[&'a str], complete: bool, rng: &mut SplitMix) -> Option<&'a str> {
    if complete {
        if let Some(action) = legal.iter().find(|a| a.starts_with("complete ")) {
            return Some(action);
        }
    }
    if legal.is_empty() {
        return None;
    }
    Some(legal[(rng.next() % legal.len() as u64) as usize])
}

const HELLO: &str = concat!(
    r#"{"type":"hello","protocol":"takenoko-engine","version":1,"name":"random-rust","#,
    r#""author":"takenoko-arena examples","options":[{"name":"complete","type":"check","#,
    r#""default":true}]}"#
);

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let mut out = io::BufWriter::new(io::stdout().lock());
    let mut rng = SplitMix(0);
    let mut complete = true;
    for line in stdin.lock().lines() {
        let line = line?;
        match string_field(&line, "type") {
            Some("hello") => writeln!(out, "{HELLO}")?,
            Some("options") => complete = !line.contains("\"complete\":false"),
            Some("newgame") => rng = SplitMix(number_field(&line, "seed").unwrap_or(0)),
            Some("decide") => {
                if let Some(action) = choose(&legal_actions(&line), complete, &mut rng) {
                    writeln!(out, r#"{{"type":"action","action":"{action}"}}"#)?;
                }
            }
            Some("quit") => break,
            _ => continue, // event, gameover, error, and anything newer than this engine
        }
        out.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completes_before_anything_else() {
        let line = r#"{"type":"decide","legal":["place 0 1,-1","complete plot-03","end"]}"#;
        let mut rng = SplitMix(1);
        assert_eq!(
            choose(&legal_actions(line), true, &mut rng),
            Some("complete plot-03")
        );
    }

    #[test]
    fn reads_the_fields_it_needs() {
        let line = r#"{"type":"newgame","seat":1,"seed":42}"#;
        assert_eq!(
            legal_actions(r#""legal":["rain 1,0","end"]"#),
            ["rain 1,0", "end"]
        );
        assert_eq!(string_field(line, "type"), Some("newgame"));
        assert_eq!(number_field(line, "seed"), Some(42));
    }
}
