//! Types and a generator shared by the tests that hold the derive's
//! direct reader (`direct.rs`, ADR 0044) and record writer
//! (`derived_writer.rs`, ADR 0047) to serde's paths.

#![allow(dead_code)]

use mini::Mini;
use serde::{Deserialize, Serialize};

/// A unit enum with serde's renames.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Mini)]
#[serde(rename_all = "snake_case")]
pub enum Color {
    Red,
    DarkBlue,
    #[serde(rename = "grn")]
    Green,
}

pub const COLORS: [Color; 3] = [Color::Red, Color::DarkBlue, Color::Green];

/// The header of the tests' `Kit` documents: `k` is a count key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
pub struct KitHeader {
    pub n: u64,
    pub k: u32,
    pub label: Option<String>,
}

/// A header of the record count only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
pub struct PlainHeader {
    pub n: u64,
}

/// A document whose records serde reads and writes: its record type has a
/// `#[serde]` attribute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
#[mini(prefix = "ren", records = "rows")]
pub struct Renamed {
    pub header: PlainHeader,
    pub rows: Vec<RenamedRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
#[serde(rename_all = "camelCase")]
pub struct RenamedRow {
    pub first_name: String,
    pub age: u8,
}

/// A tiny deterministic generator (xorshift64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
