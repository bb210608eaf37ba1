//! A registry of contracts: one folder per family, `DIR/<prefix>/contract.json`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{check_fork, Contract};
use crate::error::{Code, Diagnostic, Error, Result};

/// The contracts found under a directory, by prefix.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    contracts: BTreeMap<String, Contract>,
    paths: BTreeMap<String, PathBuf>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Loads every `DIR/*/contract.json`. A contract that fails to load is an
    /// error naming its path (E20 diagnostics are kept); two contracts with
    /// the same prefix are an E20 error too.
    pub fn load(dir: impl AsRef<Path>) -> Result<Registry> {
        let dir = dir.as_ref();
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok())
            .map(|e| e.path().join("contract.json"))
            .filter(|p| p.is_file())
            .collect();
        entries.sort();
        let mut reg = Registry::new();
        for path in entries {
            let contract = Contract::from_path(&path).map_err(|e| {
                let mut diags: Vec<Diagnostic> = e.diagnostics().to_vec();
                if diags.is_empty() {
                    return Error::message(format!("{}: {e}", path.display()));
                }
                for d in &mut diags {
                    *d = Diagnostic::new(
                        d.code(),
                        0,
                        None,
                        format!("{}: {}", path.display(), d.message()),
                    );
                }
                Error::invalid(diags)
            })?;
            reg.insert_at(contract, Some(path))?;
        }
        Ok(reg)
    }

    /// Adds a contract; E20 if its prefix is already registered.
    pub fn insert(&mut self, contract: Contract) -> Result<()> {
        self.insert_at(contract, None)
    }

    fn insert_at(&mut self, contract: Contract, path: Option<PathBuf>) -> Result<()> {
        let prefix = contract.prefix().to_string();
        if self.contracts.contains_key(&prefix) {
            return Err(Error::invalid(vec![Diagnostic::new(
                Code::E20,
                0,
                None,
                format!("two contracts declare prefix '{prefix}'"),
            )]));
        }
        if let Some(p) = path {
            self.paths.insert(prefix.clone(), p);
        }
        self.contracts.insert(prefix, contract);
        Ok(())
    }

    /// The contract for `prefix`.
    pub fn get(&self, prefix: &str) -> Option<&Contract> {
        self.contracts.get(prefix)
    }

    /// The file a contract was loaded from.
    pub fn path(&self, prefix: &str) -> Option<&Path> {
        self.paths.get(prefix).map(PathBuf::as_path)
    }

    /// All contracts, by prefix.
    pub fn iter(&self) -> impl Iterator<Item = &Contract> {
        self.contracts.values()
    }

    /// Number of contracts.
    pub fn len(&self) -> usize {
        self.contracts.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.contracts.is_empty()
    }

    /// Checks the fork invariants of every contract that names a parent:
    /// the parent must be registered (E21) and I2–I4 must hold. Returns the
    /// violations by prefix (a prefix absent from the map is a valid fork or
    /// a root family).
    pub fn check_forks(&self) -> BTreeMap<String, Vec<Diagnostic>> {
        let mut out = BTreeMap::new();
        for c in self.iter() {
            let Some(parent) = c.parent() else { continue };
            let diags = match self.get(parent) {
                Some(p) => check_fork(c, p),
                None => vec![Diagnostic::new(
                    Code::E21,
                    0,
                    None,
                    format!("parent family '{parent}' is not in the registry"),
                )],
            };
            if !diags.is_empty() {
                out.insert(c.prefix().to_string(), diags);
            }
        }
        out
    }
}
