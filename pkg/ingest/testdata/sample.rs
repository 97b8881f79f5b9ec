//! Crate docs with a brace {
#![allow(dead_code)]

use std::fmt;
use std::collections::HashMap;

/// Raw strings and lifetimes.
const RAW: &str = r#"a raw string with "quotes" and } braces"#;
const RAW2: &str = r##"even "# inside"##;
const C: char = '}';
const B: u8 = b'{';

#[derive(Debug, Clone)]
pub struct Holder<'a> {
    name: &'a str,
}

impl<'a> fmt::Display for Holder<'a> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{}}}", self.name) /* nested /* comment } */ still } */
    }
}

fn longest<'a>(x: &'a str, y: &'a str) -> &'a str {
    let _c = '\'';
    let _u = '\u{1F600}';
    'outer: loop { break 'outer; }
    if x.len() > y.len() { x } else { y }
}

mod tests;
