//! JSON values as the engine reads them: the data files, positions and option tables.
//!
//! A value keeps what its reader may need to quote back in a refusal (an object's key
//! order, an int of any size, the caller's handle for a value JSON cannot hold); the
//! refusal carries the value itself and Python quotes it (`arena.engine.errors.refusal`).

use std::fmt::Write;

/// A JSON value, keys in their order; `Big` is an int beyond 128 bits, its decimal digits
/// (JSON and Python allow any size: such an int is out of every range the engine checks,
/// and a refusal quotes it as given); `Foreign(i)` is a value of the caller that JSON has
/// no form for (a Python tuple, a set): the caller's handle for it (the binding's `i`-th
/// such value), which a refusal hands back as its offending value.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i128),
    Big(String),
    Float(f64),
    Str(String),
    List(Vec<Json>),
    Object(Vec<(String, Json)>),
    Foreign(usize),
}

impl Json {
    /// The value under a key of an object (None when absent or not an object).
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(items) => items.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The text of a string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    /// An integer value (not a bool).
    pub fn as_int(&self) -> Option<i128> {
        match self {
            Json::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// An integer value of any size (not a bool), a `Big` one as the nearest `i128`: what a
    /// range check reads, every range of the engine lying well inside 128 bits.
    pub fn as_wide_int(&self) -> Option<i128> {
        match self {
            Json::Int(i) => Some(*i),
            Json::Big(digits) if digits.starts_with('-') => Some(i128::MIN),
            Json::Big(_) => Some(i128::MAX),
            _ => None,
        }
    }

    /// An integer of any size, from its decimal digits (`Big` beyond 128 bits).
    pub fn int_from_digits(digits: &str) -> Json {
        digits
            .parse()
            .map_or_else(|_| Json::Big(digits.to_string()), Json::Int)
    }

    /// The items of a list.
    pub fn as_list(&self) -> Option<&[Json]> {
        match self {
            Json::List(items) => Some(items),
            _ => None,
        }
    }

    /// The entries of an object.
    pub fn as_object(&self) -> Option<&[(String, Json)]> {
        match self {
            Json::Object(items) => Some(items),
            _ => None,
        }
    }

    /// Python's `repr` of the value (as the reference quotes it in a refusal).
    pub fn repr(&self) -> String {
        let mut out = String::new();
        self.write_repr(&mut out);
        out
    }

    fn write_repr(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("None"),
            Json::Bool(true) => out.push_str("True"),
            Json::Bool(false) => out.push_str("False"),
            Json::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Json::Big(digits) => out.push_str(digits),
            Json::Float(f) => out.push_str(&float_repr(*f)),
            Json::Str(s) => out.push_str(&str_repr(s)),
            Json::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write_repr(out);
                }
                out.push(']');
            }
            Json::Object(items) => {
                out.push('{');
                for (i, (k, v)) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&str_repr(k));
                    out.push_str(": ");
                    v.write_repr(out);
                }
                out.push('}');
            }
            Json::Foreign(i) => {
                let _ = write!(out, "<value {i}>");
            }
        }
    }

    /// Compact JSON text (`json.dumps(..., separators=(",", ":"))` for ASCII data).
    pub fn dump(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out, true);
        out
    }

    /// Compact JSON text with other characters as they are (`ensure_ascii=False`).
    pub fn dump_unicode(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out, false);
        out
    }

    fn write_json(&self, out: &mut String, ascii: bool) {
        match self {
            Json::Null | Json::Foreign(_) => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Json::Big(digits) => out.push_str(digits),
            Json::Float(f) => out.push_str(&float_repr(*f)),
            Json::Str(s) => write_json_str(s, out, ascii),
            Json::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_json(out, ascii);
                }
                out.push(']');
            }
            Json::Object(items) => {
                out.push('{');
                for (i, (k, v)) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_json_str(k, out, ascii);
                    out.push(':');
                    v.write_json(out, ascii);
                }
                out.push('}');
            }
        }
    }
}

fn write_json_str(s: &str, out: &mut String, ascii: bool) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (ascii && (c as u32) > 0x7e) => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{:04x}", unit);
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Python's `repr` of a str: single quotes unless the text holds one and no double quote.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `repr` of a float (shortest round-trip digits, Python's exponent form).
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    // Rust's `{:e}` gives the shortest round-trip digits: d.ddd e X.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if negative { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let n = digits.len() as i32;
        if exp >= 0 {
            let int_len = exp + 1;
            if n <= int_len {
                let zeros = "0".repeat((int_len - n) as usize);
                format!("{sign}{digits}{zeros}.0")
            } else {
                let (a, b) = digits.split_at(int_len as usize);
                format!("{sign}{a}.{b}")
            }
        } else {
            let zeros = "0".repeat((-exp - 1) as usize);
            format!("{sign}0.{zeros}{digits}")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{first}{frac}e{esign}{:02}", exp.abs())
    }
}

/// Parses JSON text (the data files, a position read from text).
pub fn parse(text: &str) -> Result<Json, String> {
    let mut p = Parser {
        b: text.as_bytes(),
        i: 0,
    };
    p.ws();
    let v = p.value()?;
    p.ws();
    if p.i != p.b.len() {
        return Err(format!("extra data at byte {}", p.i));
    }
    Ok(v)
}

/// The values of some top-level fields of a JSON object's text, the rest checked as JSON
/// but not built (the runner's parent reads a record's result fields so, and needs the
/// line to be JSON: 11 kB of moves it does not read cost it nothing).  A repeated key keeps
/// its last value.  Refused: text that is not one JSON object (RFC 8259, nested at most 1024
/// deep), as `orjson.loads` refuses it.
pub fn top_fields(text: &str, wanted: &[&str]) -> Result<Vec<(String, Json)>, String> {
    let mut p = Parser {
        b: text.as_bytes(),
        i: 0,
    };
    p.ws();
    if p.b.get(p.i) != Some(&b'{') {
        return p.err("expected an object");
    }
    p.i += 1;
    let mut out: Vec<(String, Json)> = Vec::new();
    p.ws();
    if p.b.get(p.i) == Some(&b'}') {
        p.i += 1;
    } else {
        loop {
            p.ws();
            if p.b.get(p.i) != Some(&b'"') {
                return p.err("expected a key");
            }
            let key = match p.value()? {
                Json::Str(k) => k,
                _ => return p.err("expected a key"),
            };
            p.ws();
            if p.b.get(p.i) != Some(&b':') {
                return p.err("expected ':'");
            }
            p.i += 1;
            p.ws();
            if wanted.contains(&key.as_str()) {
                let start = p.i;
                p.skip(1)?;
                let mut sub = Parser {
                    b: &p.b[start..p.i],
                    i: 0,
                };
                let v = sub.value()?;
                match out.iter_mut().find(|(k, _)| *k == key) {
                    Some(slot) => slot.1 = v,
                    None => out.push((key, v)),
                }
            } else {
                p.skip(1)?;
            }
            p.ws();
            match p.b.get(p.i) {
                Some(b',') => p.i += 1,
                Some(b'}') => {
                    p.i += 1;
                    break;
                }
                _ => return p.err("expected ',' or '}'"),
            }
        }
    }
    p.ws();
    if p.i != p.b.len() {
        return p.err("extra data");
    }
    Ok(out)
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\n' | b'\r' | b'\t') {
            self.i += 1;
        }
    }

    /// Checks one value (strict JSON) and steps past it, building nothing.
    fn skip(&mut self, depth: usize) -> Result<(), String> {
        if depth > 1024 {
            return self.err("nested too deeply");
        }
        match self.b.get(self.i) {
            Some(b'{') | Some(b'[') => {
                let close = if self.b[self.i] == b'{' { b'}' } else { b']' };
                let object = close == b'}';
                self.i += 1;
                self.ws();
                if self.b.get(self.i) == Some(&close) {
                    self.i += 1;
                    return Ok(());
                }
                loop {
                    self.ws();
                    if object {
                        if self.b.get(self.i) != Some(&b'"') {
                            return self.err("expected a key");
                        }
                        self.skip_str()?;
                        self.ws();
                        if self.b.get(self.i) != Some(&b':') {
                            return self.err("expected ':'");
                        }
                        self.i += 1;
                        self.ws();
                    }
                    self.skip(depth + 1)?;
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(&c) if c == close => {
                            self.i += 1;
                            return Ok(());
                        }
                        _ => return self.err("expected ',' or a close"),
                    }
                }
            }
            Some(b'"') => self.skip_str(),
            Some(b't') if self.b[self.i..].starts_with(b"true") => {
                self.i += 4;
                Ok(())
            }
            Some(b'f') if self.b[self.i..].starts_with(b"false") => {
                self.i += 5;
                Ok(())
            }
            Some(b'n') if self.b[self.i..].starts_with(b"null") => {
                self.i += 4;
                Ok(())
            }
            Some(c) if *c == b'-' || c.is_ascii_digit() => self.skip_number(),
            _ => self.err("unexpected character"),
        }
    }

    fn skip_str(&mut self) -> Result<(), String> {
        self.i += 1; // the opening quote
        loop {
            match self.b.get(self.i) {
                None => return self.err("unterminated string"),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(());
                }
                Some(b'\\') => match self.b.get(self.i + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.i += 2,
                    Some(b'u') => {
                        let hex = self.b.get(self.i + 2..self.i + 6);
                        if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                            return self.err("bad \\u escape");
                        }
                        self.i += 6;
                    }
                    _ => return self.err("bad escape"),
                },
                Some(&c) if c < 0x20 => return self.err("control character in a string"),
                Some(_) => self.i += 1,
            }
        }
    }

    fn skip_number(&mut self) -> Result<(), String> {
        let b = self.b;
        let digits = |i: &mut usize| {
            let start = *i;
            while *i < b.len() && b[*i].is_ascii_digit() {
                *i += 1;
            }
            *i - start
        };
        let mut i = self.i;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(c) if c.is_ascii_digit() => {
                digits(&mut i);
            }
            _ => return self.err("bad number"),
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            if digits(&mut i) == 0 {
                return self.err("bad number");
            }
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if digits(&mut i) == 0 {
                return self.err("bad number");
            }
        }
        self.i = i;
        Ok(())
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at byte {}", self.i))
    }

    fn value(&mut self) -> Result<Json, String> {
        match self.b.get(self.i) {
            None => self.err("unexpected end"),
            Some(b'{') => self.object(),
            Some(b'[') => self.list(),
            Some(b'"') => self.string().map(Json::Str),
            Some(b't') if self.b[self.i..].starts_with(b"true") => {
                self.i += 4;
                Ok(Json::Bool(true))
            }
            Some(b'f') if self.b[self.i..].starts_with(b"false") => {
                self.i += 5;
                Ok(Json::Bool(false))
            }
            Some(b'n') if self.b[self.i..].starts_with(b"null") => {
                self.i += 4;
                Ok(Json::Null)
            }
            Some(c) if *c == b'-' || c.is_ascii_digit() => self.number(),
            Some(_) => self.err("unexpected character"),
        }
    }

    /// An object, at its `{`.
    fn object(&mut self) -> Result<Json, String> {
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.b.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Ok(Json::Object(items));
        }
        loop {
            self.ws();
            let key = match self.value()? {
                Json::Str(s) => s,
                _ => return self.err("expected a key"),
            };
            self.ws();
            if self.b.get(self.i) != Some(&b':') {
                return self.err("expected ':'");
            }
            self.i += 1;
            self.ws();
            let v = self.value()?;
            // A repeated key keeps its last value, as json.loads does.
            if let Some(slot) = items.iter_mut().find(|(k, _)| *k == key) {
                slot.1 = v;
            } else {
                items.push((key, v));
            }
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Json::Object(items));
                }
                _ => return self.err("expected ',' or '}'"),
            }
        }
    }

    /// A list, at its `[`.
    fn list(&mut self) -> Result<Json, String> {
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.b.get(self.i) == Some(&b']') {
            self.i += 1;
            return Ok(Json::List(items));
        }
        loop {
            self.ws();
            items.push(self.value()?);
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Json::List(items));
                }
                _ => return self.err("expected ',' or ']'"),
            }
        }
    }

    /// A string, at its opening quote.
    fn string(&mut self) -> Result<String, String> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let Some(&c) = self.b.get(self.i) else {
                return self.err("unterminated string");
            };
            self.i += 1;
            match c {
                b'"' => return Ok(out),
                b'\\' => self.escape(&mut out)?,
                _ => {
                    // Copy a run of UTF-8 bytes as they are.
                    let start = self.i - 1;
                    let mut end = self.i;
                    while end < self.b.len() && self.b[end] != b'"' && self.b[end] != b'\\' {
                        end += 1;
                    }
                    out.push_str(
                        std::str::from_utf8(&self.b[start..end]).map_err(|e| e.to_string())?,
                    );
                    self.i = end;
                }
            }
        }
    }

    /// A backslash escape of a string (after the backslash), added to `out`.
    fn escape(&mut self, out: &mut String) -> Result<(), String> {
        let Some(&e) = self.b.get(self.i) else {
            return self.err("bad escape");
        };
        self.i += 1;
        match e {
            b'"' => out.push('"'),
            b'\\' => out.push('\\'),
            b'/' => out.push('/'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'u' => {
                let hex = |p: &Self, at: usize| -> Result<u32, String> {
                    let s = p.b.get(at..at + 4).ok_or("bad \\u escape")?;
                    let s = std::str::from_utf8(s).map_err(|e| e.to_string())?;
                    u32::from_str_radix(s, 16).map_err(|e| e.to_string())
                };
                let mut code = hex(self, self.i)?;
                self.i += 4;
                if (0xD800..0xDC00).contains(&code)
                    && self.b.get(self.i..self.i + 2) == Some(b"\\u")
                {
                    let low = hex(self, self.i + 2)?;
                    if (0xDC00..0xE000).contains(&low) {
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                        self.i += 6;
                    }
                }
                out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
            }
            _ => return self.err("bad escape"),
        }
        Ok(())
    }

    /// A number, at its first character: an int unless it has a fraction or an exponent.
    fn number(&mut self) -> Result<Json, String> {
        let start = self.i;
        self.i += 1;
        let mut float = false;
        while let Some(&c) = self.b.get(self.i) {
            if c.is_ascii_digit() {
                self.i += 1;
            } else if matches!(c, b'.' | b'e' | b'E' | b'+' | b'-') {
                float = true;
                self.i += 1;
            } else {
                break;
            }
        }
        let s = std::str::from_utf8(&self.b[start..self.i]).map_err(|e| e.to_string())?;
        if float {
            s.parse()
                .map(Json::Float)
                .map_err(|_| format!("bad number {s}"))
        } else if s == "-" {
            Err(format!("bad number {s}"))
        } else {
            Ok(Json::int_from_digits(s))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_int_of_any_size_is_read_and_quoted_as_python_writes_it() {
        let big = "-340282366920938463463374607431768211457";
        let v = parse(&format!("[{big}, 170141183460469231731687303715884105727]")).unwrap();
        assert_eq!(
            v.repr(),
            format!("[{big}, 170141183460469231731687303715884105727]")
        );
        assert_eq!(
            v.dump(),
            format!("[{big},170141183460469231731687303715884105727]")
        );
        let items = v.as_list().unwrap();
        assert_eq!(items[0], Json::Big(big.to_string()));
        assert_eq!(items[0].as_int(), None);
        assert_eq!(items[0].as_wide_int(), Some(i128::MIN));
        assert_eq!(
            Json::int_from_digits(&"9".repeat(40)).as_wide_int(),
            Some(i128::MAX)
        );
        assert!(parse("-").is_err());
    }

    #[test]
    fn parses_and_quotes_as_python() {
        let v = parse(r#"{"a": [1, 2.5, "x'y", true, null], "b": {"c": -3}}"#).unwrap();
        assert_eq!(
            v.repr(),
            r#"{'a': [1, 2.5, "x'y", True, None], 'b': {'c': -3}}"#
        );
        assert_eq!(v.dump(), r#"{"a":[1,2.5,"x'y",true,null],"b":{"c":-3}}"#);
        assert_eq!(float_repr(1e20), "1e+20");
        assert_eq!(float_repr(0.0001), "0.0001");
        assert_eq!(float_repr(3.0), "3.0");
        assert_eq!(float_repr(1e16), "1e+16");
        assert_eq!(float_repr(123456.789), "123456.789");
    }
}

/// A string as orjson writes it (the runner's records): UTF-8 as it is, `"` and `\` escaped,
/// control characters as `\n`-style escapes or `\u00XX`.
pub fn write_orjson_str(s: &str, out: &mut String) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{:04x}", b);
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// A float as orjson writes it: the shortest digits that read back, in fixed notation for
/// decimal exponents -5..15 (`0.00001`, `1000000000000000.0`), else `1e-6`, `1.5e+16`;
/// not-a-number and the infinities as `null`.
pub fn orjson_float(f: f64) -> String {
    if !f.is_finite() {
        return "null".into();
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp == -5 {
        // Python's repr goes to the exponent form one place earlier.
        let negative = mantissa.starts_with('-');
        let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
        return format!("{}0.0000{digits}", if negative { "-" } else { "" });
    }
    if (-4..16).contains(&exp) {
        return float_repr(f);
    }
    let sign = if exp < 0 { "-" } else { "+" };
    format!("{mantissa}e{sign}{}", exp.abs())
}

#[cfg(test)]
mod orjson_tests {
    use super::*;

    #[test]
    fn top_fields_read_some_and_check_all() {
        let text = r#"{"game":"a","moves":["x \"y\"",[1,-2.5e3,{"k":null}]],"seed":7,"seed":8}"#;
        let got = top_fields(text, &["game", "seed", "absent"]).unwrap();
        assert_eq!(
            got,
            vec![
                ("game".to_string(), Json::Str("a".into())),
                ("seed".to_string(), Json::Int(8))
            ]
        );
        for bad in [
            "[1]",
            r#"{"a":01}"#,
            r#"{"a":[1,]}"#,
            r#"{"a":1}x"#,
            r#"{"a":"\q"}"#,
            r#"{"a":NaN}"#,
            "{\"a\":\"\u{1}\"}",
            r#"{"a":1.}"#,
            r#"{"a" 1}"#,
        ] {
            assert!(top_fields(bad, &["a"]).is_err(), "{bad}");
        }
    }

    #[test]
    fn floats_and_strings_as_orjson_writes_them() {
        // orjson 3.11's own output for these values.
        for (v, text) in [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (5e-6, "5e-6"),
            (1.2e-5, "0.000012"),
            (9.87654321e-5, "0.0000987654321"),
            (0.000123, "0.000123"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.2345678901234568e16, "1.2345678901234568e+16"),
            (2.5e-300, "2.5e-300"),
            (0.1 + 0.2, "0.30000000000000004"),
            (f64::NAN, "null"),
        ] {
            assert_eq!(orjson_float(v), text, "{v}");
        }
        let mut out = String::new();
        write_orjson_str("a\u{7f}\u{0}\u{1f}\u{2028}é\"\\/\n", &mut out);
        assert_eq!(out, "\"a\u{7f}\\u0000\\u001f\u{2028}é\\\"\\\\/\\n\"");
    }
}
