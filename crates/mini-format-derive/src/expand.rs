//! The generated `impl mini::Mini` (and `impl mini::MiniDocument` for a
//! document type), under the path `#[mini(crate = "…")]` gives.

use proc_macro2::{Literal, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DataEnum, DataStruct, DeriveInput, Fields, GenericParam, LitStr};

use crate::attr::{self, BoundLit, Errors, MiniContainer, MiniField, Rule};
use crate::case;

pub(crate) fn expand(input: &DeriveInput) -> TokenStream {
    let krate = attr::crate_path(&input.attrs);
    let krate = &krate;
    let mut errors = Errors::default();
    for p in &input.generics.params {
        if !matches!(p, GenericParam::Lifetime(_)) {
            errors.push(syn::Error::new_spanned(
                p,
                "mini types cannot be generic: the contract is cached per type, and each field's \
                 position and type must be fixed by the type itself (lifetimes are fine)",
            ));
        }
    }
    let mut enum_direct = TokenStream::new();
    let (body, container) = match &input.data {
        Data::Enum(e) => {
            let (body, names) = enum_body(input, e, krate, &mut errors);
            if let Some(variants) = crate::direct::eligible_enum(input, e, &names) {
                enum_direct = crate::direct::enum_impl(&input.ident, &variants, krate);
            }
            (body, None)
        }
        Data::Struct(s) => {
            let (body, c) = struct_body(input, s, krate, &mut errors);
            (body, Some(c))
        }
        Data::Union(u) => {
            errors.push(syn::Error::new_spanned(
                u.union_token,
                "#[derive(Mini)] goes on a struct with named fields or a unit enum, not a union",
            ));
            (TokenStream::new(), None)
        }
    };

    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    if let Err(e) = errors.finish() {
        // The errors, plus an impl of both traits that says the derive
        // failed: without it every use of the type (a field of another
        // derived type, `mini::from_str::<T>`) would add a follow-on
        // "the trait bound `T: Mini` is not satisfied" to the real error.
        let error = e.into_compile_error();
        return quote! {
            #error
            const _: () = {
                #[automatically_derived]
                impl #impl_generics #krate::Mini for #ident #ty_generics #where_clause {
                    fn describe() -> #krate::__private::typed::Describe {
                        #krate::__private::typed::Describe::Unsupported(
                            "#[derive(mini::Mini)] failed on this type: see its compile error",
                        )
                    }
                }
                #[automatically_derived]
                impl #impl_generics #krate::MiniDocument for #ident #ty_generics #where_clause {}
            };
        };
    }
    let document = matches!(
        container,
        Some(MiniContainer {
            prefix: Some(_),
            ..
        })
    );
    let cached = if document {
        // The cell keeps the diagnostics so a cached E20 keeps its code.
        quote! {
            fn cached_contract() -> #krate::Result<::std::borrow::Cow<'static, #krate::Contract>> {
                type Failure = (::std::string::String, ::std::vec::Vec<#krate::Diagnostic>);
                static CELL: ::std::sync::OnceLock<::std::result::Result<#krate::Contract, Failure>> =
                    ::std::sync::OnceLock::new();
                match CELL.get_or_init(|| {
                    <Self as #krate::Mini>::try_contract()
                        .map_err(|e| (::std::string::ToString::to_string(&e), e.diagnostics().to_vec()))
                }) {
                    ::std::result::Result::Ok(c) => ::std::result::Result::Ok(::std::borrow::Cow::Borrowed(c)),
                    ::std::result::Result::Err((_, d)) if !d.is_empty() => {
                        ::std::result::Result::Err(#krate::Error::invalid(::std::clone::Clone::clone(d)))
                    }
                    ::std::result::Result::Err((m, _)) => {
                        ::std::result::Result::Err(#krate::Error::message(::std::clone::Clone::clone(m)))
                    }
                }
            }
        }
    } else {
        TokenStream::new()
    };
    let mut write_records = TokenStream::new();
    let direct = match (&input.data, &container) {
        (Data::Struct(s), Some(mini)) => match crate::direct::eligible(input, s, mini) {
            Some(fields) if document => {
                let records = mini
                    .records
                    .as_ref()
                    .map_or_else(|| "records".to_string(), LitStr::value);
                if let Some((_, (r, item))) = crate::direct::document_fields(&fields, &records) {
                    write_records = crate::write::document_method(r, item, krate);
                }
                crate::direct::document_impl(ident, &fields, &records, krate)
            }
            Some(fields) => {
                let read = crate::direct::record_impl(ident, &fields, krate);
                let write = crate::write::record_impl(ident, s, krate);
                quote! { #read #write }
            }
            None => TokenStream::new(),
        },
        _ => enum_direct,
    };
    let read_direct = input
        .generics
        .params
        .is_empty()
        .then(|| crate::direct::document_method(krate));
    let document_impl = document.then(|| {
        quote! {
            #[automatically_derived]
            impl #impl_generics #krate::MiniDocument for #ident #ty_generics #where_clause {
                #read_direct
            }
        }
    });
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #krate::Mini for #ident #ty_generics #where_clause {
                #[allow(clippy::needless_update)]
                fn describe() -> #krate::__private::typed::Describe {
                    #body
                }
                #cached
                #write_records
            }
            #document_impl
            #direct
        };
    }
}

fn unraw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#")
        .map_or_else(|| s.clone(), str::to_owned)
}

/// The `Describe::Enum` of a unit enum, and the names serde reads its
/// variants by.
fn enum_body(
    input: &DeriveInput,
    e: &DataEnum,
    krate: &syn::Path,
    errors: &mut Errors,
) -> (TokenStream, Vec<String>) {
    let serde = attr::serde_container(&input.attrs, errors);
    attr::enum_container(
        &input.attrs,
        "#[mini(...)] does not apply to an enum (except #[mini(crate = \"…\")]): a unit enum is \
         written as one of its variant names (use #[serde(rename)] / #[serde(rename_all)] to \
         change them)",
        errors,
    );
    let mut names = Vec::new();
    for v in &e.variants {
        attr::no_mini(
            &v.attrs,
            "#[mini(...)] does not apply to an enum variant: use #[serde(rename = \"…\")] to \
             change the name it is written as",
            errors,
        );
        if !matches!(v.fields, Fields::Unit) {
            errors.push(syn::Error::new_spanned(
                v,
                "mini enums are unit enums: a value is one of the declared names, so a variant \
                 cannot carry data (one .mini position holds one name)",
            ));
            continue;
        }
        let sv = attr::serde_field(&v.attrs, "variant", errors);
        if sv.skip {
            continue;
        }
        match attr::one_name(
            &sv.rename,
            serde.rename_all,
            case::variant_name,
            &v.ident,
            "variant",
        ) {
            Ok(n) => names.push(n),
            Err(err) => errors.push(err),
        }
    }
    let body = quote! {
        #krate::__private::typed::Describe::Enum(::std::vec![
            #(::std::string::String::from(#names)),*
        ])
    };
    (body, names)
}

fn opt_str(v: Option<&LitStr>) -> Option<TokenStream> {
    v.map(|s| quote!(::core::option::Option::Some(#s)))
}

fn bound_tokens(b: &BoundLit, krate: &syn::Path) -> TokenStream {
    let inner = match b {
        BoundLit::Int(m, neg) => {
            let lit = Literal::u128_unsuffixed(*m);
            let sign = neg.then(|| quote!(-));
            quote!(#krate::__private::typed::Bound::Int(#sign #lit))
        }
        BoundLit::Float(v) => {
            let lit = Literal::f64_unsuffixed(v.abs());
            let sign = v.is_sign_negative().then(|| quote!(-));
            quote!(#krate::__private::typed::Bound::Float(#sign #lit))
        }
        BoundLit::Str(s) => quote!(#krate::__private::typed::Bound::Str(#s)),
    };
    quote!(::core::option::Option::Some(#inner))
}

fn field_attrs(m: &MiniField, serde_default: bool, krate: &syn::Path) -> TokenStream {
    let mut sets = Vec::new();
    if m.unique.is_some() {
        sets.push(quote!(unique: true));
    }
    if m.extension.is_some() {
        sets.push(quote!(extension: true));
    }
    if let Some(rule) = m.mlist {
        let r = match rule {
            Rule::ExactlyOne => quote!(ExactlyOne),
            Rule::AtLeastOne => quote!(AtLeastOne),
            Rule::AtMostOne => quote!(AtMostOne),
            Rule::Any => quote!(Any),
        };
        sets.push(quote!(mlist: ::core::option::Option::Some(#krate::contract::MarkerRule::#r)));
    }
    if let Some(s) = opt_str(m.selected.as_ref()) {
        sets.push(quote!(selected: #s));
    }
    if let Some(s) = opt_str(m.count_key.as_ref()) {
        sets.push(quote!(count_key: #s));
    }
    if let Some(b) = &m.min {
        let b = bound_tokens(b, krate);
        sets.push(quote!(min: #b));
    }
    if let Some(b) = &m.max {
        let b = bound_tokens(b, krate);
        sets.push(quote!(max: #b));
    }
    if let Some(s) = opt_str(m.desc.as_ref()) {
        sets.push(quote!(desc: #s));
    }
    if serde_default {
        sets.push(quote!(serde_default: true));
    }
    quote! {
        #krate::__private::typed::FieldAttrs {
            #(#sets,)*
            ..::core::default::Default::default()
        }
    }
}

fn struct_body(
    input: &DeriveInput,
    s: &DataStruct,
    krate: &syn::Path,
    errors: &mut Errors,
) -> (TokenStream, MiniContainer) {
    let serde = attr::serde_container(&input.attrs, errors);
    let mini = attr::mini_container(&input.attrs, errors);
    if let (false, Some(path)) = (mini.has_prefix, &mini.first_doc_key) {
        errors.push(syn::Error::new_spanned(
            path,
            "this #[mini(...)] key describes a document: add #[mini(prefix = \"…\")] to make the \
             struct a document type (headers and records take no struct keys)",
        ));
    }
    let named = match &s.fields {
        Fields::Named(named) => Some(named),
        Fields::Unnamed(f) => {
            errors.push(syn::Error::new_spanned(
                f,
                "#[derive(Mini)] needs named fields: a .mini contract names every position \
                 (a tuple struct has no field names; use a struct with named fields)",
            ));
            None
        }
        Fields::Unit => {
            errors.push(syn::Error::new_spanned(
                &input.ident,
                "#[derive(Mini)] needs named fields: a unit struct has no positions to write \
                 (use a unit enum for a value that is one of some names)",
            ));
            None
        }
    };
    let mut fields = Vec::new();
    let mut names: Vec<(String, &syn::Ident)> = Vec::new();
    for f in named.into_iter().flat_map(|n| &n.named) {
        let Some(ident) = &f.ident else { continue };
        let sf = attr::serde_field(&f.attrs, "field", errors);
        let mf = attr::mini_field(&f.attrs, errors);
        if sf.skip {
            if let Some(a) = &mf.any {
                errors.push(syn::Error::new_spanned(
                    a,
                    "#[mini(...)] on a #[serde(skip)] field: the field is not on the .mini line, \
                     so there is nothing to describe",
                ));
            }
            continue;
        }
        let name = match attr::one_name(
            &sf.rename,
            serde.rename_all,
            case::field_name,
            ident,
            "field",
        ) {
            Ok(n) => n,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        names.push((name.clone(), ident));
        let ty = &f.ty;
        let describe = quote_spanned!(ty.span()=> <#ty as #krate::Mini>::describe());
        let attrs = field_attrs(&mf, sf.default || serde.default, krate);
        fields.push(quote! {
            #krate::__private::typed::FieldDesc {
                name: ::std::borrow::Cow::Borrowed(#name),
                ty: #describe,
                attrs: #attrs,
            }
        });
    }

    if mini.prefix.is_some() && named.is_some() {
        document_fields(input, &mini, &names, errors);
    }
    let body = struct_desc(&unraw(&input.ident), &mini, &fields, krate);
    (body, mini)
}

/// The fields of a document struct: `header`, the records field (named by
/// `#[mini(records = "…")]`, default `records`) and optionally `prefix`.
/// Any other name is most often the records field under another name: the
/// message says which attribute names it.
fn document_fields(
    input: &DeriveInput,
    mini: &MiniContainer,
    names: &[(String, &syn::Ident)],
    errors: &mut Errors,
) {
    let records = mini
        .records
        .as_ref()
        .map_or_else(|| "records".to_string(), LitStr::value);
    for (name, ident) in names {
        if name == "header" || name == "prefix" || *name == records {
            continue;
        }
        let msg = match &mini.records {
            None => format!(
                "a document struct holds `header`, `records` and optionally `prefix`: if `{name}` \
                 holds the records, add #[mini(records = \"{name}\")] to the struct"
            ),
            Some(_) => format!(
                "a document struct holds `header`, `{records}` (its #[mini(records = \"{records}\")]) \
                 and optionally `prefix`: `{name}` is none of them (to make `{name}` the records \
                 field, write #[mini(records = \"{name}\")])"
            ),
        };
        errors.push(syn::Error::new_spanned(ident, msg));
    }
    // A field under another name has been reported above, with the fix.
    if names.iter().all(|(n, _)| n == "header" || n == "prefix") {
        let hint = if mini.records.is_none() {
            " (or name your own with #[mini(records = \"…\")])"
        } else {
            ""
        };
        errors.push(syn::Error::new_spanned(
            &input.ident,
            format!("a document struct needs its records field: `{records}: Vec<Record>`{hint}"),
        ));
    }
}

/// The `Describe::Struct` of a struct, behind a guard against recursion.
fn struct_desc(
    rust_name: &str,
    mini: &MiniContainer,
    fields: &[TokenStream],
    krate: &syn::Path,
) -> TokenStream {
    let mut sets = vec![quote!(rust_name: #rust_name)];
    for (k, v) in [
        ("prefix", &mini.prefix),
        ("records", &mini.records),
        ("name", &mini.name),
        ("description", &mini.description),
    ] {
        if let Some(v) = opt_str(v.as_ref()) {
            let k = syn::Ident::new(k, proc_macro2::Span::call_site());
            sets.push(quote!(#k: #v));
        }
    }
    if let Some(c) = &mini.separator {
        sets.push(quote!(separator: ::core::option::Option::Some(#c)));
    }
    if let Some(v) = mini.version {
        let v = Literal::u64_unsuffixed(v);
        sets.push(quote!(version: ::core::option::Option::Some(#v)));
    }
    // A type that contains itself (through Vec or Box) would recurse for
    // ever; the inner occurrence is described as unsupported instead.
    quote! {
        // In a block of its own, so that its names cannot shadow the
        // field types named below.
        let _reset = {
            ::std::thread_local! {
                static BUSY: ::std::cell::Cell<bool> = const { ::std::cell::Cell::new(false) };
            }
            struct Reset;
            impl ::std::ops::Drop for Reset {
                fn drop(&mut self) {
                    BUSY.with(|b| b.set(false));
                }
            }
            if BUSY.with(|b| b.replace(true)) {
                return #krate::__private::typed::Describe::Unsupported(
                    "a struct that contains itself cannot be written: a .mini record is one flat line",
                );
            }
            Reset
        };
        #krate::__private::typed::Describe::Struct(#krate::__private::typed::StructDesc {
            #(#sets,)*
            fields: ::std::vec![#(#fields),*],
            ..::core::default::Default::default()
        })
    }
}
