//! Every seed the arena derives (the reference's `arena/play/seeds.py`): a hash of the
//! coordinates of what it seeds, so that a game plays the same whichever process plays it.
//!
//! `derive_seed(parts)`: the parts' text joined by U+001F, as UTF-8, hashed by BLAKE2b with
//! an 8-byte digest (no key, salt or personalization), read as a big-endian integer and
//! shifted right by one bit (63 bits).

use blake2::digest::{Update, VariableOutput};
use blake2::Blake2bVar;

/// Seeds are below `2**SEED_BITS`.
pub const SEED_BITS: u32 = 63;

/// A stable 63-bit seed from the parts' text (an integer's text is its decimal form).
pub fn derive_seed(parts: &[&str]) -> u64 {
    let mut hasher = Blake2bVar::new(8).expect("8 is a valid BLAKE2b digest size");
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            hasher.update("\u{1f}".as_bytes());
        }
        hasher.update(part.as_bytes());
    }
    let mut digest = [0u8; 8];
    hasher
        .finalize_variable(&mut digest)
        .expect("the buffer has the digest's size");
    u64::from_be_bytes(digest) >> (64 - SEED_BITS)
}

/// The game seed of a deal of a pairing.
pub fn deal_seed(master_seed: i128, pairing: usize, deal: usize) -> u64 {
    derive_seed(&[
        "deal",
        &master_seed.to_string(),
        &pairing.to_string(),
        &deal.to_string(),
    ])
}

/// The seed of a bot's generator in one game: from the game seed, the seat and the
/// participant's name (as `arena.play.registry.make_bot` seeds a Python bot).
pub fn bot_seed(game_seed: i128, seat: u8, participant: &str) -> u64 {
    derive_seed(&[
        "bot",
        &game_seed.to_string(),
        &seat.to_string(),
        participant,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_values() {
        // arena.play.seeds as CPython computes them.
        assert_eq!(
            derive_seed(&["deal", "7", "0", "12"]),
            5_560_027_285_600_186_568
        );
        assert_eq!(bot_seed(5, 1, "random"), 363_430_490_537_141_751);
        assert_eq!(deal_seed(1, 0, 0), derive_seed(&["deal", "1", "0", "0"]));
    }
}
