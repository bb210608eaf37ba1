//! The transferable specification block of a contract: the text pasted into
//! a system prompt so that a model writes valid documents of the family
//! (SPEC 1.1; the counterpart of upstream `prompt.py`).
//!
//! ```
//! use mini_tools::prompt::{spec_block, Lang};
//! let contract = mini::Contract::from_json(r#"{
//!     "prefix": "q", "name": "Quiz",
//!     "header": {"keys": {"k": {"type": "int"}}},
//!     "core": [
//!         {"name": "id", "type": "str", "unique": true},
//!         {"name": "options", "type": "mlist", "count_key": "k"}
//!     ]
//! }"#).unwrap();
//! let block = spec_block(&contract, Lang::En, Some(2));
//! assert!(block.starts_with(".mini FORMAT — family 'q' v1 (Quiz)"));
//! assert!(block.contains("exactly as many elements as header key 'k' says"));
//! // the example parses under the contract
//! let example = block.split("Valid example:\n").nth(1).unwrap();
//! assert_eq!(mini::parse(example, &contract).unwrap().records().len(), 2);
//! ```

mod example;

use std::fmt;
use std::str::FromStr;

use crate::check::bound_text;
use crate::contract::{
    Component, Contract, Field, HeaderKey, Kind, MarkerRule, Scalar, ScalarType,
};

/// The language of a prompt (spec blocks and repair requests).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// Spanish.
    Es,
}

impl Lang {
    /// The language of an ISO 639-1 code (`"en"`, `"es"`, any case).
    pub fn from_code(code: &str) -> Option<Lang> {
        code.parse().ok()
    }

    /// The language code: `en` or `es`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Es => "es",
        }
    }

    pub(crate) fn pick(self, en: &'static str, es: &'static str) -> &'static str {
        match self {
            Lang::En => en,
            Lang::Es => es,
        }
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl FromStr for Lang {
    type Err = String;

    /// Parses `en` or `es` (case-insensitive).
    fn from_str(s: &str) -> Result<Lang, String> {
        match s.to_ascii_lowercase().as_str() {
            "en" => Ok(Lang::En),
            "es" => Ok(Lang::Es),
            _ => Err(format!("unknown language '{s}' (expected en or es)")),
        }
    }
}

/// A synthetic example document of `records` records that parses strictly
/// under `contract` (it is serialized with [`mini::dumps`], which verifies
/// it with the parser).
///
/// Values come from the rules alone: the first enum value, the lower bound
/// of ranges (or 0 / `2024-01-01`), as many list elements as the count key
/// or the arity asks, the first element marked in marked lists, distinct
/// values for `unique` fields, optional fields left empty on every second
/// record. Returns `None` when those values cannot satisfy the contract
/// (for instance a `unique` bool field over three records, or a `unique`
/// enum with fewer values than records).
pub fn example(contract: &Contract, records: usize) -> Option<String> {
    example::example(contract, records)
}

fn range(s: &Scalar, lang: Lang) -> String {
    if !s.ty.is_ranged() {
        return String::new();
    }
    let lo = s.min.as_ref().map(bound_text);
    let hi = s.max.as_ref().map(bound_text);
    match (lo, hi, lang) {
        (Some(a), Some(b), Lang::En) => format!(", from {a} to {b}"),
        (Some(a), Some(b), Lang::Es) => format!(", de {a} a {b}"),
        (Some(a), None, Lang::En) => format!(", at least {a}"),
        (Some(a), None, Lang::Es) => format!(", como mínimo {a}"),
        (None, Some(b), Lang::En) => format!(", at most {b}"),
        (None, Some(b), Lang::Es) => format!(", como máximo {b}"),
        (None, None, _) => String::new(),
    }
}

/// `int`, `enum (one of L1|L2)`, `date (YYYY-MM-DD)`, … with the bounds.
fn scalar_doc(s: &Scalar, lang: Lang) -> String {
    let base = match s.ty {
        ScalarType::Str => lang.pick("str (text)", "str (texto)").to_string(),
        ScalarType::Int => lang.pick("int (integer)", "int (entero)").to_string(),
        ScalarType::Float => lang.pick("float (number)", "float (número)").to_string(),
        ScalarType::Bool => "bool (true/false)".to_string(),
        ScalarType::Date => lang
            .pick("date (YYYY-MM-DD)", "date (AAAA-MM-DD)")
            .to_string(),
        ScalarType::Decimal => lang
            .pick(
                "decimal (exact decimal without exponent, e.g. 12.50)",
                "decimal (decimal exacto sin exponente, p. ej. 12.50)",
            )
            .to_string(),
        ScalarType::Enum => format!(
            "{} {{{}}}",
            lang.pick("enum, one of", "enum, uno de"),
            s.values.join("|")
        ),
    };
    format!("{base}{}", range(s, lang))
}

fn arity_doc(min: Option<u64>, max: Option<u64>, count_key: Option<&str>, lang: Lang) -> String {
    let mut out = match (min, max, lang) {
        (Some(a), Some(b), Lang::En) if a == b => format!(", exactly {a} elements"),
        (Some(a), Some(b), Lang::Es) if a == b => format!(", exactamente {a} elementos"),
        (Some(a), Some(b), Lang::En) => format!(", {a} to {b} elements"),
        (Some(a), Some(b), Lang::Es) => format!(", de {a} a {b} elementos"),
        (Some(a), None, Lang::En) if a > 0 => format!(", at least {a} element(s)"),
        (Some(a), None, Lang::Es) if a > 0 => format!(", al menos {a} elemento(s)"),
        (_, Some(b), Lang::En) => format!(", at most {b} elements"),
        (_, Some(b), Lang::Es) => format!(", como máximo {b} elementos"),
        _ => String::new(),
    };
    if let Some(k) = count_key {
        out.push_str(&match lang {
            Lang::En => format!(", exactly as many elements as header key '{k}' says"),
            Lang::Es => {
                format!(", exactamente tantos elementos como indique la clave de cabecera '{k}'")
            }
        });
    }
    out
}

fn marker_doc(rule: MarkerRule, lang: Lang) -> &'static str {
    match rule {
        MarkerRule::ExactlyOne => lang.pick(
            "exactly one element carries the suffix * (the selected one)",
            "exactamente un elemento lleva el sufijo * (el seleccionado)",
        ),
        MarkerRule::AtLeastOne => lang.pick(
            "at least one element carries the suffix * (the selected ones)",
            "al menos un elemento lleva el sufijo * (los seleccionados)",
        ),
        MarkerRule::AtMostOne => lang.pick(
            "at most one element carries the suffix * (the selected one, if any)",
            "como máximo un elemento lleva el sufijo * (el seleccionado, si lo hay)",
        ),
        MarkerRule::Any => lang.pick(
            "any number of elements (zero or more) carry the suffix * (the selected ones)",
            "cualquier número de elementos (cero o más) lleva el sufijo * (los seleccionados)",
        ),
    }
}

fn component_doc(c: &Component, lang: Lang) -> String {
    let mut s = format!("{}: {}", c.name, scalar_doc(&c.scalar, lang));
    if c.optional {
        s.push_str(lang.pick(", optional", ", opcional"));
    }
    if let Some(d) = &c.desc {
        s.push_str(" — ");
        s.push_str(d);
    }
    s
}

/// The shape of a field or header key.
fn kind_doc(kind: &Kind, sep: char, lang: Lang) -> String {
    match kind {
        Kind::Scalar(s) => scalar_doc(s, lang),
        Kind::List { item, arity } => format!(
            "{} {} {} '{sep}'{}; {}",
            lang.pick("list of", "lista de"),
            scalar_doc(item, lang),
            lang.pick("separated by", "separados por"),
            arity_doc(arity.min, arity.max, arity.count_key.as_deref(), lang),
            lang.pick("no * markers", "sin marcadores *"),
        ),
        Kind::MList {
            item,
            arity,
            marker,
            ..
        } => format!(
            "{} {} {} '{sep}'{}; {}",
            lang.pick("marked list of", "lista marcada de"),
            scalar_doc(item, lang),
            lang.pick("separated by", "separados por"),
            arity_doc(arity.min, arity.max, arity.count_key.as_deref(), lang),
            marker_doc(*marker, lang),
        ),
        Kind::Tuple(comps) => {
            let names: Vec<&str> = comps.iter().map(|c| c.name.as_str()).collect();
            let docs: Vec<String> = comps.iter().map(|c| component_doc(c, lang)).collect();
            match lang {
                Lang::En => format!(
                    "tuple '{}' of exactly {} components separated by '{sep}' ({}); no * markers",
                    names.join(&sep.to_string()),
                    comps.len(),
                    docs.join("; ")
                ),
                Lang::Es => format!(
                    "tupla '{}' de exactamente {} componentes separados por '{sep}' ({}); sin marcadores *",
                    names.join(&sep.to_string()),
                    comps.len(),
                    docs.join("; ")
                ),
            }
        }
    }
}

fn field_doc(i: usize, f: &Field, sep: char, lang: Lang) -> String {
    let mut s = format!("  {}. {}: {}", i + 1, f.name, kind_doc(&f.kind, sep, lang));
    if f.optional {
        s.push_str(lang.pick(
            " — optional (may be empty)",
            " — opcional (puede quedar vacío)",
        ));
    }
    if f.unique {
        s.push_str(lang.pick(
            " — unique (no two records repeat it)",
            " — único (no se repite entre registros)",
        ));
    }
    if let Some(d) = &f.desc {
        s.push_str(" — ");
        s.push_str(d);
    }
    s
}

/// `<int>`, `<str>`, `<enum>`, `<int,…>` (list), `<a,b>` (tuple).
fn header_type(kind: &Kind, sep: char) -> String {
    match kind {
        Kind::Scalar(s) => format!("<{}>", s.ty.name()),
        Kind::List { item, .. } | Kind::MList { item, .. } => {
            format!("<{}{sep}…>", item.ty.name())
        }
        Kind::Tuple(comps) => {
            let names: Vec<&str> = comps.iter().map(|c| c.name.as_str()).collect();
            format!("<{}>", names.join(&sep.to_string()))
        }
    }
}

/// The fields whose element count a header key fixes: `5 (options)`.
fn count_users(c: &Contract, key: &str) -> Vec<String> {
    c.fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| match &f.kind {
            Kind::List { arity, .. } | Kind::MList { arity, .. } => {
                arity.count_key.as_deref() == Some(key)
            }
            _ => false,
        })
        .map(|(i, f)| format!("{} ({})", i + 1, f.name))
        .collect()
}

fn header_key_doc(c: &Contract, hk: &HeaderKey, lang: Lang) -> String {
    let mut s = format!("  {}: {}", hk.name, kind_doc(&hk.kind, c.separator(), lang));
    s.push_str(if hk.required {
        lang.pick(", required", ", obligatoria")
    } else {
        lang.pick(", optional", ", opcional")
    });
    if hk.name == "n" {
        s.push_str(lang.pick(
            " — the number of record lines",
            " — el número de líneas de registro",
        ));
    }
    let users = count_users(c, &hk.name);
    if !users.is_empty() {
        s.push_str(&match lang {
            Lang::En => format!(
                " — count key: the number of elements of field(s) {}",
                users.join(", ")
            ),
            Lang::Es => format!(
                " — clave de conteo: el número de elementos del/de los campo(s) {}",
                users.join(", ")
            ),
        });
    }
    if let Some(d) = hk.desc.as_ref().filter(|_| hk.name != "n") {
        s.push_str(" — ");
        s.push_str(d);
    }
    s
}

/// The specification block of `contract` in `lang`, optionally followed by
/// a valid example of `example` records.
///
/// It states: the title (family prefix, version, name) and description;
/// the header shape with every header key except `v` (optional ones marked
/// `?`), each key's type, and the rule that `n` equals the number of
/// record lines; one line per record, with no comments, code fences or
/// blank lines; the numbered fields in order (core, then extensions) with
/// their type, range, enum values, list arity and count key, marker rule,
/// tuple layout (component names, types, enum values), optional marker,
/// `unique` and description; how to protect the separator and a literal
/// trailing `*`; the escapes; unquoted numbers and `true`/`false`; that an
/// empty field is null only in optional fields; and the record arity.
///
/// The example is built by [`example`] and therefore parses strictly under
/// the contract. **When the contract cannot produce a valid example from
/// synthetic values (see [`example`]), the example is omitted** and the
/// block ends with the rules.
pub fn spec_block(contract: &Contract, lang: Lang, example: Option<usize>) -> String {
    let c = contract;
    let sep = c.separator();
    let mut l: Vec<String> = Vec::new();
    let name = c
        .meta("name")
        .map(|n| format!(" ({n})"))
        .unwrap_or_default();
    l.push(match lang {
        Lang::En => format!(
            ".mini FORMAT — family '{}' v{}{name}",
            c.prefix(),
            c.version()
        ),
        Lang::Es => format!(
            "FORMATO .mini — familia '{}' v{}{name}",
            c.prefix(),
            c.version()
        ),
    });
    if let Some(d) = c.meta("description") {
        l.push(d.to_string());
    }
    l.push(lang.pick("Rules:", "Reglas:").to_string());

    // header
    let keys: Vec<&HeaderKey> = c.header_keys().iter().filter(|k| k.name != "v").collect();
    let mut ordered: Vec<&HeaderKey> = keys.iter().copied().filter(|k| k.name == "n").collect();
    ordered.extend(keys.iter().copied().filter(|k| k.name != "n"));
    let shape: Vec<String> = ordered
        .iter()
        .map(|k| {
            format!(
                "{}={}{}",
                k.name,
                header_type(&k.kind, sep),
                if k.required { "" } else { "?" }
            )
        })
        .collect();
    l.push(match lang {
        Lang::En => format!(
            "- Plain UTF-8 text. The FIRST line is the header: '{}|{}'. n is mandatory and must equal the exact number of record lines; keys marked ? are optional (omit them or write them once); header keys may come in any order.",
            c.prefix(),
            shape.join("|")
        ),
        Lang::Es => format!(
            "- Texto plano UTF-8. La PRIMERA línea es la cabecera: '{}|{}'. n es obligatorio y debe ser igual al número exacto de líneas de registro; las claves marcadas con ? son opcionales (omítelas o escríbelas una sola vez); las claves de cabecera pueden ir en cualquier orden.",
            c.prefix(),
            shape.join("|")
        ),
    });
    l.push(
        lang.pick("  Header keys:", "  Claves de cabecera:")
            .to_string(),
    );
    for k in &ordered {
        l.push(format!("  {}", header_key_doc(c, k, lang)));
    }
    l.push(
        lang.pick(
            "- After the header, ONE line per record and nothing else (no comments, no code fences, no blank lines).",
            "- Después de la cabecera, UNA línea por registro y nada más (sin comentarios, sin bloques de código, sin líneas en blanco).",
        )
        .to_string(),
    );
    l.push(
        lang.pick(
            "- Each record has these fields in THIS order, separated by '|' (position is the semantics; field names are never written):",
            "- Cada registro tiene estos campos en ESTE orden, separados por '|' (la posición es la semántica; los nombres de campo no se escriben):",
        )
        .to_string(),
    );
    for (i, f) in c.core().iter().enumerate() {
        l.push(field_doc(i, f, sep, lang));
    }
    if !c.extensions().is_empty() {
        l.push(
            lang.pick(
                "  Extension fields (optional, only at the end, in this order; trailing ones may be omitted):",
                "  Campos de extensión (opcionales, solo al final, en este orden; los finales pueden omitirse):",
            )
            .to_string(),
        );
        let core = c.core().len();
        for (i, f) in c.extensions().iter().enumerate() {
            l.push(field_doc(core + i, f, sep, lang));
        }
    }

    // lexical rules
    l.push(match lang {
        Lang::En => format!(
            "- If a list element or tuple component contains the separator '{sep}', escape the separator as '\\{sep}' (impact\\{sep} justice and evidence; the * marker stays last: a\\{sep} b*). A literal trailing asterisk is written '\\*'; a literal leading double quote '\\\"'."
        ),
        Lang::Es => format!(
            "- Si un elemento de lista o componente de tupla contiene el separador '{sep}', escapa el separador como '\\{sep}' (impacto\\{sep} justicia y evidencia; el marcador * queda al final: a\\{sep} b*). Un asterisco final literal se escribe '\\*'; una comilla doble inicial literal, '\\\"'."
        ),
    });
    let unguarded: Vec<&str> = c.unguarded_text_lists().map(|f| f.name.as_str()).collect();
    if !unguarded.is_empty() {
        let names = unguarded.join(", ");
        l.push(match lang {
            Lang::En => format!(
                "- Take special care in {names}: their length is not fixed, so an unescaped '{sep}' inside an element silently splits it into two elements and nothing flags the mistake. Check every element of these fields for '{sep}' and write it '\\{sep}'."
            ),
            Lang::Es => format!(
                "- Cuidado especial en {names}: su longitud no es fija, así que un '{sep}' sin escapar dentro de un elemento lo parte en dos en silencio y nada señala el error. Revisa cada elemento de estos campos y escribe '{sep}' como '\\{sep}'."
            ),
        });
    }
    l.push(
        lang.pick(
            "- Escapes valid in any value: '\\|' for a literal vertical bar, '\\\\' for a backslash, '\\n' for a line break; no other backslash sequence is valid.",
            "- Escapes válidos en cualquier valor: '\\|' para una barra vertical literal, '\\\\' para una barra invertida, '\\n' para un salto de línea; ninguna otra secuencia con barra invertida es válida.",
        )
        .to_string(),
    );
    l.push(
        lang.pick(
            "- Numbers unquoted, with a dot for decimals and no thousands separators; booleans true/false. Scalar fields are never quoted.",
            "- Números sin comillas, con punto decimal y sin separadores de miles; booleanos true/false. Los campos escalares nunca llevan comillas.",
        )
        .to_string(),
    );
    let optional: Vec<&str> = c
        .fields()
        .iter()
        .filter(|f| f.optional)
        .map(|f| f.name.as_str())
        .collect();
    l.push(match (optional.is_empty(), lang) {
        (false, Lang::En) => format!(
            "- An empty field means null; it is allowed only for optional fields ({}). Every other field must have a value.",
            optional.join(", ")
        ),
        (false, Lang::Es) => format!(
            "- Un campo vacío significa nulo; solo se permite en los campos opcionales ({}). Todos los demás campos deben tener valor.",
            optional.join(", ")
        ),
        (true, Lang::En) => {
            "- An empty field means null, which only optional fields allow: this family has none, so every field must have a value.".to_string()
        }
        (true, Lang::Es) => {
            "- Un campo vacío significa nulo, lo que solo admiten los campos opcionales: esta familia no tiene ninguno, así que todos los campos deben tener valor.".to_string()
        }
    });
    let core = c.core().len();
    let ext = c.extensions().len();
    l.push(match (ext, lang) {
        (0, Lang::En) => format!(
            "- Record: exactly {core} fields ({} '|' per line).",
            core - 1
        ),
        (0, Lang::Es) => format!(
            "- Registro: exactamente {core} campos ({} '|' por línea).",
            core - 1
        ),
        (e, Lang::En) => format!(
            "- Record: {core} core fields + up to {e} extension field{} ({core} to {} fields per line).",
            if e == 1 { "" } else { "s" },
            core + e
        ),
        (e, Lang::Es) => format!(
            "- Registro: {core} campos núcleo + hasta {e} de extensión (de {core} a {} campos por línea).",
            core + e
        ),
    });
    if let Some(text) = example.and_then(|n| self::example(c, n)) {
        l.push(lang.pick("Valid example:", "Ejemplo válido:").to_string());
        l.push(text);
    }
    l.join("\n")
}
