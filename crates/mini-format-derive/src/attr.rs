//! Reading `#[mini(...)]` and the `#[serde(...)]` attributes that change
//! what a `.mini` line holds.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, ExprUnary, Lit, LitStr, Token, UnOp};

use crate::case::RenameRule;

/// Collects several errors so one build reports them all.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    pub(crate) fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

/// `Err(new_spanned(tokens, msg))`.
fn fail<T>(tokens: impl quote::ToTokens, msg: impl std::fmt::Display) -> syn::Result<T> {
    Err(syn::Error::new_spanned(tokens, msg))
}

/// The key of a nested meta, as text (`rename`, `mlist`, …).
fn key(meta: &ParseNestedMeta) -> String {
    key_of(&meta.path)
}

fn key_of(path: &syn::Path) -> String {
    path.get_ident().map_or_else(
        || quote::quote!(#path).to_string().replace(' ', ""),
        ToString::to_string,
    )
}

/// Consumes the value of a serde key we do not interpret (`= expr` or `(…)`).
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        content.parse::<TokenStream>()?;
    }
    Ok(())
}

/// The value of `key = value`, seen through the invisible groups that
/// `macro_rules!` puts around a `$x:literal` / `$x:expr`.
fn value(meta: &ParseNestedMeta) -> syn::Result<Expr> {
    fn ungroup(mut e: Expr) -> Expr {
        while let Expr::Group(g) = e {
            e = *g.expr;
        }
        e
    }
    let mut expr = ungroup(meta.value()?.parse()?);
    if let Expr::Unary(u) = &mut expr {
        let inner = std::mem::replace(&mut *u.expr, Expr::Verbatim(TokenStream::new()));
        *u.expr = ungroup(inner);
    }
    Ok(expr)
}

/// A string value: `key = "…"`.
fn lit_str(meta: &ParseNestedMeta, attr: &str, example: &str) -> syn::Result<LitStr> {
    let k = key(meta);
    if !meta.input.peek(Token![=]) {
        return fail(
            &meta.path,
            format_args!("#[{attr}({k})] needs a value: #[{attr}({k} = {example})]"),
        );
    }
    let expr = value(meta)?;
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Ok(s),
        other => fail(
            other,
            format_args!("#[{attr}({k})] takes a string literal: #[{attr}({k} = {example})]"),
        ),
    }
}

/// Serde's `key = "…"` or `key(serialize = "…", deserialize = "…")`:
/// the serialize and the deserialize value.
type SerDe = (Option<LitStr>, Option<LitStr>);

fn ser_de(meta: &ParseNestedMeta) -> syn::Result<SerDe> {
    if meta.input.peek(syn::token::Paren) {
        let mut out: SerDe = (None, None);
        meta.parse_nested_meta(|inner| {
            let k = key(&inner);
            let s = lit_str(&inner, "serde", "\"…\"")?;
            match k.as_str() {
                "serialize" => out.0 = Some(s),
                "deserialize" => out.1 = Some(s),
                _ => return fail(&inner.path, "expected `serialize` or `deserialize`"),
            }
            Ok(())
        })?;
        Ok(out)
    } else {
        let s = lit_str(meta, "serde", "\"…\"")?;
        Ok((Some(s.clone()), Some(s)))
    }
}

pub(crate) fn is_serde(a: &Attribute) -> bool {
    a.path().is_ident("serde")
}

fn is_mini(a: &Attribute) -> bool {
    a.path().is_ident("mini")
}

/// Container-level `#[serde(...)]`.
#[derive(Default)]
pub(crate) struct SerdeContainer {
    /// `rename_all` for serializing and for deserializing.
    pub(crate) rename_all: (Option<RenameRule>, Option<RenameRule>),
    /// `#[serde(default)]` on the container.
    pub(crate) default: bool,
}

pub(crate) fn serde_container(attrs: &[Attribute], errors: &mut Errors) -> SerdeContainer {
    let mut out = SerdeContainer::default();
    for a in attrs.iter().filter(|a| is_serde(a)) {
        // Rejections do not stop the parse, so every one is reported.
        let mut rejected = Vec::new();
        let r = a.parse_nested_meta(|meta| {
            let k = key(&meta);
            let why = match k.as_str() {
                "rename_all" => {
                    let (s, d) = ser_de(&meta)?;
                    // An unknown rule is reported by serde's own derive.
                    out.rename_all = (
                        s.and_then(|s| RenameRule::from_name(&s.value())),
                        d.and_then(|d| RenameRule::from_name(&d.value())),
                    );
                    return Ok(());
                }
                "default" => {
                    skip_value(&meta)?;
                    out.default = true;
                    return Ok(());
                }
                "untagged" => "#[serde(untagged)] cannot work in .mini: a value is read by its \
                     position, so the type of each position must be known from the contract, not \
                     guessed from the data"
                    .to_string(),
                "tag" => "#[serde(tag = \"…\")] cannot work in .mini: an internal tag is an \
                     extra named key, and a .mini line has positions, not keys"
                    .to_string(),
                "content" => "#[serde(content = \"…\")] cannot work in .mini: adjacent tagging \
                     nests the value under a named key, and a .mini line has positions, not keys"
                    .to_string(),
                "transparent" | "from" | "try_from" | "into" => format!(
                    "#[serde({k})] cannot work with #[derive(Mini)]: serde would read or write \
                     another type than the fields the contract describes by position"
                ),
                _ => return skip_value(&meta),
            };
            rejected.push(syn::Error::new_spanned(&meta.path, why));
            skip_value(&meta)
        });
        for e in rejected {
            errors.push(e);
        }
        if let Err(e) = r {
            errors.push(e);
        }
    }
    out
}

/// Field-level `#[serde(...)]`.
#[derive(Default)]
pub(crate) struct SerdeField {
    /// `rename` for serializing and for deserializing.
    pub(crate) rename: SerDe,
    /// `skip` (or both `skip_serializing` and `skip_deserializing`).
    pub(crate) skip: bool,
    skip_ser: Option<syn::Path>,
    skip_de: Option<syn::Path>,
    /// `default` / `default = "path"`.
    pub(crate) default: bool,
}

/// Field- or variant-level `#[serde(...)]`; `what` is "field" or "variant".
pub(crate) fn serde_field(attrs: &[Attribute], what: &str, errors: &mut Errors) -> SerdeField {
    let mut out = SerdeField::default();
    for a in attrs.iter().filter(|a| is_serde(a)) {
        let mut rejected = Vec::new();
        let r = a.parse_nested_meta(|meta| {
            let k = key(&meta);
            let why = match k.as_str() {
                "rename" => {
                    let (s, d) = ser_de(&meta)?;
                    if s.is_some() {
                        out.rename.0 = s;
                    }
                    if d.is_some() {
                        out.rename.1 = d;
                    }
                    return Ok(());
                }
                "skip" => {
                    out.skip = true;
                    return Ok(());
                }
                "skip_serializing" => {
                    out.skip_ser = Some(meta.path.clone());
                    return Ok(());
                }
                "skip_deserializing" => {
                    out.skip_de = Some(meta.path.clone());
                    return Ok(());
                }
                "default" => {
                    out.default = true;
                    return skip_value(&meta);
                }
                "flatten" => "#[serde(flatten)] cannot work in .mini: flattening merges another \
                     struct's keys into this one by name, and a .mini line has positions, not \
                     keys; declare the fields here instead"
                    .to_string(),
                "skip_serializing_if" => format!(
                    "#[serde(skip_serializing_if = \"…\")] cannot work in .mini: a skipped {what} \
                     would shift every later position on the line; use Option<T> (written as an \
                     empty position) instead"
                ),
                _ => return skip_value(&meta),
            };
            rejected.push(syn::Error::new_spanned(&meta.path, why));
            skip_value(&meta)
        });
        for e in rejected {
            errors.push(e);
        }
        if let Err(e) = r {
            errors.push(e);
        }
    }
    let one_way = |path: &syn::Path, why: &str| {
        let k = key_of(path);
        syn::Error::new_spanned(
            path,
            format!("#[serde({k})] alone cannot work in .mini: {why}; use #[serde(skip)] to leave it out of both"),
        )
    };
    match (&out.skip_ser, &out.skip_de) {
        (Some(_), Some(_)) => out.skip = true,
        _ if out.skip => {}
        (Some(p), None) if what == "variant" => errors.push(one_way(
            p,
            "the contract would list the variant as a value that serde refuses to write",
        )),
        (None, Some(p)) if what == "variant" => errors.push(one_way(
            p,
            "the contract would list the variant as a value that serde refuses to read",
        )),
        (Some(p), None) => errors.push(one_way(
            p,
            "the field would be read but never written, so written lines would lose a position",
        )),
        (None, Some(p)) => errors.push(one_way(
            p,
            "the field would be written but never read, so read lines would have one position \
             too many",
        )),
        (None, None) => {}
    }
    out
}

/// Resolves serde's serialize and deserialize names; they must agree.
pub(crate) fn one_name(
    rename: &SerDe,
    rename_all: (Option<RenameRule>, Option<RenameRule>),
    apply: fn(Option<RenameRule>, &str) -> String,
    ident: &syn::Ident,
    what: &str,
) -> syn::Result<String> {
    let raw = ident.to_string();
    let raw = raw.strip_prefix("r#").unwrap_or(&raw);
    let ser = rename
        .0
        .as_ref()
        .map_or_else(|| apply(rename_all.0, raw), LitStr::value);
    let de = rename
        .1
        .as_ref()
        .map_or_else(|| apply(rename_all.1, raw), LitStr::value);
    if ser != de {
        let span = rename
            .0
            .as_ref()
            .or(rename.1.as_ref())
            .map_or_else(|| ident.span(), LitStr::span);
        return Err(syn::Error::new(
            span,
            format_args!(
                "serde writes this {what} as \"{ser}\" but reads it as \"{de}\": a .mini contract \
                 gives each {what} one name, so both directions must agree"
            ),
        ));
    }
    Ok(ser)
}

/// Rejects every `#[mini(...)]` in `attrs` (for places that take none).
pub(crate) fn no_mini(attrs: &[Attribute], why: &str, errors: &mut Errors) {
    for a in attrs.iter().filter(|a| is_mini(a)) {
        errors.push(syn::Error::new_spanned(a, why));
    }
}

/// Sets a once-only attribute, rejecting a duplicate.
fn once<T>(slot: &mut Option<T>, value: T, meta: &ParseNestedMeta) -> syn::Result<()> {
    if slot.is_some() {
        let k = key(meta);
        return fail(&meta.path, format_args!("duplicate #[mini({k})]"));
    }
    *slot = Some(value);
    Ok(())
}

fn flag(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren) {
        let k = key(meta);
        return fail(
            &meta.path,
            format_args!("#[mini({k})] is a flag and takes no value: write #[mini({k})]"),
        );
    }
    Ok(())
}

/// Container-level `#[mini(...)]` (on a struct).
#[derive(Default)]
pub(crate) struct MiniContainer {
    pub(crate) prefix: Option<LitStr>,
    pub(crate) records: Option<LitStr>,
    pub(crate) separator: Option<syn::LitChar>,
    pub(crate) version: Option<u64>,
    pub(crate) name: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    /// `#[mini(crate = "…")]`: the path of the `mini` crate (checked here;
    /// [`crate_path`] reads it for the expansion).
    pub(crate) krate: Option<syn::Path>,
    /// The first document-only key, to report when there is no prefix.
    pub(crate) first_doc_key: Option<syn::Path>,
    /// Whether `prefix` was written (even with a bad value).
    pub(crate) has_prefix: bool,
    /// `#[mini(through_serde)]`: the records are read by the type's
    /// `Deserialize` only, never by the derive's direct reader (ADR 0044).
    pub(crate) through_serde: bool,
}

const CONTAINER_KEYS: &str =
    "prefix, records, separator, version, name, description, crate, through_serde";

pub(crate) fn mini_container(attrs: &[Attribute], errors: &mut Errors) -> MiniContainer {
    let mut out = MiniContainer::default();
    for a in attrs.iter().filter(|a| is_mini(a)) {
        let r = a.parse_nested_meta(|meta| {
            let k = key(&meta);
            let doc_key = matches!(k.as_str(), "records" | "separator" | "version" | "name" | "description");
            out.has_prefix |= k == "prefix";
            if doc_key && out.first_doc_key.is_none() {
                out.first_doc_key = Some(meta.path.clone());
            }
            match k.as_str() {
                "prefix" => {
                    let v = lit_str(&meta, "mini", "\"quiz\"")?;
                    once(&mut out.prefix, v, &meta)
                }
                "records" => {
                    let v = lit_str(&meta, "mini", "\"items\"")?;
                    once(&mut out.records, v, &meta)
                }
                "name" => {
                    let v = lit_str(&meta, "mini", "\"…\"")?;
                    once(&mut out.name, v, &meta)
                }
                "description" => {
                    let v = lit_str(&meta, "mini", "\"…\"")?;
                    once(&mut out.description, v, &meta)
                }
                "crate" => {
                    let p = crate_value(&meta)?;
                    once(&mut out.krate, p, &meta)
                }
                "through_serde" => {
                    if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
                        return fail(&meta.path, "#[mini(through_serde)] takes no value");
                    }
                    out.through_serde = true;
                    Ok(())
                }
                "separator" => {
                    if !meta.input.peek(Token![=]) {
                        return fail(&meta.path, "#[mini(separator)] needs a value: #[mini(separator = ';')]");
                    }
                    let expr = value(&meta)?;
                    let Expr::Lit(ExprLit { lit: Lit::Char(c), .. }) = expr else {
                        return fail(
                            expr,
                            "#[mini(separator)] takes a char literal: #[mini(separator = ';')]",
                        );
                    };
                    once(&mut out.separator, c, &meta)
                }
                "version" => {
                    if !meta.input.peek(Token![=]) {
                        return fail(&meta.path, "#[mini(version)] needs a value: #[mini(version = 2)]");
                    }
                    let expr = value(&meta)?;
                    let Expr::Lit(ExprLit { lit: Lit::Int(i), .. }) = &expr else {
                        return fail(
                            expr,
                            "#[mini(version)] takes a non-negative integer literal: #[mini(version = 2)]",
                        );
                    };
                    let v = i.base10_parse::<u64>().map_err(|_| {
                        syn::Error::new_spanned(i, "#[mini(version)] must fit in a u64")
                    })?;
                    once(&mut out.version, v, &meta)
                }
                _ => fail(
                    &meta.path,
                    format_args!(
                        "unknown #[mini({k})] on a struct: the struct keys are {CONTAINER_KEYS} \
                         (field keys go on the fields)"
                    ),
                ),
            }
        });
        if let Err(e) = r {
            errors.push(e);
        }
    }
    out
}

/// The value of `#[mini(crate = "…")]`: a path in a string, as serde's
/// `#[serde(crate = "…")]`.
fn crate_value(meta: &ParseNestedMeta) -> syn::Result<syn::Path> {
    let s = lit_str(meta, "mini", "\"mini\"")?;
    s.parse::<syn::Path>().map_err(|_| {
        syn::Error::new_spanned(
            &s,
            "#[mini(crate)] takes the path of the mini crate as a string: \
             #[mini(crate = \"mini\")] or #[mini(crate = \"my_reexports::mini\")]",
        )
    })
}

/// The path the expansion names the `mini` crate by: `#[mini(crate = "…")]`
/// on the type, `::mini` by default. Malformed values are reported by
/// [`mini_container`] (or [`enum_container`]); here they fall back to the
/// default so that the expansion stays well formed.
pub(crate) fn crate_path(attrs: &[Attribute]) -> syn::Path {
    let mut out = None;
    for a in attrs.iter().filter(|a| is_mini(a)) {
        let _ = a.parse_nested_meta(|meta| {
            if key(&meta) == "crate" {
                out = Some(crate_value(&meta)?);
            } else {
                skip_value(&meta)?;
            }
            Ok(())
        });
    }
    out.unwrap_or_else(|| syn::parse_quote!(::mini))
}

/// Container-level `#[mini(...)]` on an enum: only `crate` applies; any
/// other key is reported with `why`.
pub(crate) fn enum_container(attrs: &[Attribute], why: &str, errors: &mut Errors) {
    for a in attrs.iter().filter(|a| is_mini(a)) {
        let mut krate = None;
        let mut other = false;
        let r = a.parse_nested_meta(|meta| {
            if key(&meta) == "crate" {
                let p = crate_value(&meta)?;
                once(&mut krate, p, &meta)
            } else {
                other = true;
                skip_value(&meta)
            }
        });
        if other {
            errors.push(syn::Error::new_spanned(a, why));
        } else if let Err(e) = r {
            errors.push(e);
        }
    }
}

/// A bound as written: `min = 2`, `min = -3`, `min = 0.5`, `min = "2024-01-01"`.
pub(crate) enum BoundLit {
    /// Magnitude and sign.
    Int(u128, bool),
    Float(f64),
    Str(LitStr),
}

fn bound(meta: &ParseNestedMeta) -> syn::Result<BoundLit> {
    let k = key(meta);
    let wrong = |t: &dyn quote::ToTokens| {
        fail::<BoundLit>(
            t,
            format_args!(
                "#[mini({k})] takes a number or a string literal: #[mini({k} = 2)], \
                 #[mini({k} = -0.5)], #[mini({k} = \"2024-01-01\")]"
            ),
        )
    };
    if !meta.input.peek(Token![=]) {
        return wrong(&meta.path);
    }
    let expr = value(meta)?;
    let (neg, lit) = match &expr {
        Expr::Lit(ExprLit { lit, .. }) => (false, lit),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr: inner,
            ..
        }) => match inner.as_ref() {
            Expr::Lit(ExprLit {
                lit: lit @ (Lit::Int(_) | Lit::Float(_)),
                ..
            }) => (true, lit),
            _ => return wrong(&expr),
        },
        _ => return wrong(&expr),
    };
    match lit {
        Lit::Int(i) => {
            let m = i.base10_parse::<u128>()?;
            let limit = if neg {
                1u128 << 127
            } else {
                (1u128 << 127) - 1
            };
            if m > limit {
                return fail(&expr, format_args!("#[mini({k})] must fit in an i128"));
            }
            Ok(BoundLit::Int(m, neg))
        }
        Lit::Float(f) => {
            let v = f.base10_parse::<f64>()?;
            if !v.is_finite() {
                return fail(&expr, format_args!("#[mini({k})] must be a finite number"));
            }
            Ok(BoundLit::Float(if neg { -v } else { v }))
        }
        Lit::Str(s) => Ok(BoundLit::Str(s.clone())),
        _ => wrong(&expr),
    }
}

/// A `#[mini(mlist = "…")]` marker rule.
#[derive(Clone, Copy)]
pub(crate) enum Rule {
    ExactlyOne,
    AtLeastOne,
    AtMostOne,
    Any,
}

/// Field-level `#[mini(...)]`.
#[derive(Default)]
pub(crate) struct MiniField {
    pub(crate) unique: Option<()>,
    pub(crate) extension: Option<()>,
    pub(crate) mlist: Option<Rule>,
    pub(crate) selected: Option<LitStr>,
    pub(crate) count_key: Option<LitStr>,
    pub(crate) min: Option<BoundLit>,
    pub(crate) max: Option<BoundLit>,
    pub(crate) desc: Option<LitStr>,
    /// The first `#[mini(...)]`, for errors about the whole set.
    pub(crate) any: Option<Attribute>,
    /// Where `selected` is.
    pub(crate) selected_span: Option<Span>,
}

const FIELD_KEYS: &str = "unique, extension, mlist, selected, count_key, min, max, desc";

pub(crate) fn mini_field(attrs: &[Attribute], errors: &mut Errors) -> MiniField {
    let mut out = MiniField::default();
    for a in attrs.iter().filter(|a| is_mini(a)) {
        out.any.get_or_insert_with(|| a.clone());
        let r = a.parse_nested_meta(|meta| {
            let k = key(&meta);
            match k.as_str() {
                "unique" => {
                    flag(&meta)?;
                    once(&mut out.unique, (), &meta)
                }
                "extension" => {
                    flag(&meta)?;
                    once(&mut out.extension, (), &meta)
                }
                "mlist" => {
                    let s = lit_str(&meta, "mini", "\"exactly_one\"")?;
                    let rule = match s.value().as_str() {
                        "exactly_one" => Rule::ExactlyOne,
                        "at_least_one" => Rule::AtLeastOne,
                        "at_most_one" => Rule::AtMostOne,
                        "any" => Rule::Any,
                        other => {
                            return fail(
                                &s,
                                format_args!(
                                    "unknown marker rule \"{other}\": expected one of \
                                     \"exactly_one\", \"at_least_one\", \"at_most_one\", \"any\""
                                ),
                            )
                        }
                    };
                    once(&mut out.mlist, rule, &meta)
                }
                "selected" => {
                    let s = lit_str(&meta, "mini", "\"answer\"")?;
                    out.selected_span = Some(meta.path.span());
                    once(&mut out.selected, s, &meta)
                }
                "count_key" => {
                    let s = lit_str(&meta, "mini", "\"k\"")?;
                    once(&mut out.count_key, s, &meta)
                }
                "desc" => {
                    let s = lit_str(&meta, "mini", "\"…\"")?;
                    once(&mut out.desc, s, &meta)
                }
                "min" => {
                    let b = bound(&meta)?;
                    once(&mut out.min, b, &meta)
                }
                "max" => {
                    let b = bound(&meta)?;
                    once(&mut out.max, b, &meta)
                }
                _ => fail(
                    &meta.path,
                    format_args!(
                        "unknown #[mini({k})] on a field: the field keys are {FIELD_KEYS} \
                         (struct keys go on the struct)"
                    ),
                ),
            }
        });
        if let Err(e) = r {
            errors.push(e);
        }
    }
    if let (Some(span), None) = (out.selected_span, out.mlist) {
        errors.push(syn::Error::new(
            span,
            "#[mini(selected)] goes with #[mini(mlist = \"…\")]: it names the field that holds \
             the selection of a marked list",
        ));
    }
    out
}
