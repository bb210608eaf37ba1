//! The direct reader the derive writes beside the contract (ADR 0044): for
//! a record struct, `impl DirectRecord` (its values read in order, each
//! field type by its `DirectValue` when it has one, by serde otherwise);
//! for a document struct, `impl DirectDocument` (the header through serde,
//! the records by their direct reader) and the `MiniDocument` method that
//! picks it.
//!
//! Written only for a struct serde reads the plain way: no generics
//! (lifetimes included), no `#[serde(...)]` on the struct or a field, and
//! no `#[mini(through_serde)]`. Anything else is read by its `Deserialize`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{
    Attribute, DataEnum, DataStruct, DeriveInput, Fields, GenericArgument, PathArguments, Type,
};

use crate::attr::{self, MiniContainer};

/// A named field: its identifier and type.
type Named<'a> = (&'a syn::Ident, &'a Type);

/// The named fields of `s` when the direct reader may read the struct.
pub(crate) fn eligible<'a>(
    input: &DeriveInput,
    s: &'a DataStruct,
    mini: &MiniContainer,
) -> Option<Vec<Named<'a>>> {
    if mini.through_serde
        || !input.generics.params.is_empty()
        || input.attrs.iter().any(attr::is_serde)
    {
        return None;
    }
    let Fields::Named(named) = &s.fields else {
        return None;
    };
    named
        .named
        .iter()
        .map(|f| {
            let plain = !f.attrs.iter().any(attr::is_serde);
            Some((f.ident.as_ref()?, &f.ty)).filter(|_| plain)
        })
        .collect()
}

/// The field name serde's derive gives `ident` (no `r#`).
pub(crate) fn serde_name(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#")
        .map_or_else(|| s.clone(), str::to_owned)
}

/// `impl DirectRecord` for a record struct.
pub(crate) fn record_impl(
    ident: &syn::Ident,
    fields: &[Named<'_>],
    krate: &syn::Path,
) -> TokenStream {
    let names: Vec<_> = fields.iter().map(|(f, _)| serde_name(f)).collect();
    let types = fields.iter().map(|(_, t)| t);
    let vars: Vec<_> = (0..fields.len())
        .map(|k| quote::format_ident!("__mini_value_{}", k))
        .collect();
    let reads = fields.iter().zip(&vars).map(|((_, ty), var)| {
        quote! {
            let #var: #ty = (&__direct::Probe::<#ty>::new()).read_value(__values)?;
        }
    });
    let idents: Vec<_> = fields.iter().map(|(f, _)| f).collect();
    let types: Vec<_> = types.collect();
    let part_reads = fields.iter().zip(&vars).map(|((_, ty), var)| {
        quote! {
            let #var: #ty = (&__direct::Probe::<#ty>::new()).read_part(__parts)?;
        }
    });
    quote! {
        #[automatically_derived]
        impl<'de> #krate::__private::direct::DirectValue<'de> for #ident
        where
            #ident: #krate::__private::serde::Deserialize<'de>,
            #(#types: #krate::__private::serde::Deserialize<'de>,)*
        {
            #[inline]
            fn read_direct(
                __field: #krate::__private::direct::DirectField<'_, '_, 'de, '_>,
            ) -> #krate::Result<Self> {
                use #krate::__private::direct as __direct;
                #[allow(unused_imports)]
                use __direct::{ViaDirectPart as _, ViaSerdePart as _};
                __field.tuple_struct(
                    <Self as __direct::DirectRecord<'de>>::FIELDS,
                    |__parts| {
                        #(#part_reads)*
                        ::core::result::Result::Ok(#ident { #(#idents: #vars),* })
                    },
                )
            }
        }

        #[automatically_derived]
        impl<'de> #krate::__private::direct::DirectRecord<'de> for #ident
        where
            #ident: #krate::__private::serde::Deserialize<'de>,
            #(#types: #krate::__private::serde::Deserialize<'de>,)*
        {
            const FIELDS: &'static [&'static str] = &[#(#names),*];

            #[inline]
            fn push_fields(
                __values: &mut #krate::__private::direct::RecordValues<'_, '_, 'de, '_>,
                __out: &mut ::std::vec::Vec<Self>,
            ) -> #krate::Result<()> {
                use #krate::__private::direct as __direct;
                #[allow(unused_imports)]
                use __direct::{ViaDirectValue as _, ViaSerdeValue as _};
                #(#reads)*
                __out.push(#ident { #(#idents: #vars),* });
                ::core::result::Result::Ok(())
            }
        }
    }
}

/// `R` when `ty` is written `Vec<R>`.
fn vec_item(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Vec" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first() {
        Some(GenericArgument::Type(t)) if args.args.len() == 1 => Some(t),
        _ => None,
    }
}

/// A document struct of exactly `header` and the records field (a `Vec`):
/// the header's identifier and type, the records' identifier and the
/// records' item type.
pub(crate) fn document_fields<'a>(
    fields: &[Named<'a>],
    records: &str,
) -> Option<(Named<'a>, Named<'a>)> {
    let header = fields.iter().find(|(f, _)| serde_name(f) == "header");
    let items = fields.iter().find(|(f, _)| serde_name(f) == records);
    let (Some(&header), Some(&(r, r_ty)), 2) = (header, items, fields.len()) else {
        return None;
    };
    Some((header, (r, vec_item(r_ty)?)))
}

/// `impl DirectDocument` for a document struct of exactly `header` and the
/// records field (a `Vec`); nothing for any other document.
pub(crate) fn document_impl(
    ident: &syn::Ident,
    fields: &[Named<'_>],
    records: &str,
    krate: &syn::Path,
) -> TokenStream {
    let Some(((h, h_ty), (r, item))) = document_fields(fields, records) else {
        return TokenStream::new();
    };
    quote! {
        #[automatically_derived]
        impl<'de> #krate::__private::direct::DirectDocument<'de> for #ident
        where
            #h_ty: #krate::__private::serde::Deserialize<'de>,
            #item: #krate::__private::direct::DirectRecord<'de>,
        {
            fn read_document(__de: &mut #krate::Deserializer<'de, '_>) -> #krate::Result<Self> {
                let #h = __de.direct_header::<#h_ty>()?;
                let #r = __de.direct_records::<#item>()?;
                ::core::result::Result::Ok(#ident { #h, #r })
            }
        }
    }
}

/// The `MiniDocument` method that reads a document by its direct reader
/// when it has one (`impl DirectDocument` above, whose bounds hold).
pub(crate) fn document_method(krate: &syn::Path) -> TokenStream {
    quote! {
        fn __read_direct<'de>(
            __de: &mut #krate::Deserializer<'de, '_>,
        ) -> ::core::option::Option<#krate::Result<Self>> {
            #[allow(unused_imports)]
            use #krate::__private::direct::{Probe, ViaDirectDocument as _, ViaSerdeDocument as _};
            (&Probe::<Self>::new()).read_document(__de)
        }
    }
}

/// Whether every `#[serde(...)]` in `attrs` has only keys in `allowed`,
/// each written `key = "…"` (no `key(serialize = …, deserialize = …)`).
fn only_plain_keys(attrs: &[Attribute], allowed: &[&str]) -> bool {
    attrs.iter().filter(|a| attr::is_serde(a)).all(|a| {
        a.parse_nested_meta(|meta| {
            let known = allowed.iter().any(|k| meta.path.is_ident(k));
            if !known || !meta.input.peek(syn::Token![=]) {
                return Err(meta.error("not a plain key"));
            }
            meta.value()?.parse::<syn::LitStr>().map(drop)
        })
        .is_ok()
    })
}

/// The variants of a unit enum with the names serde reads them by, when
/// the direct reader may map a name to its variant: no generics, and
/// serde's names changed only by `rename_all` and `rename` (no alias, no
/// skipped variant, no other rule a name could go through).
pub(crate) fn eligible_enum<'a>(
    input: &DeriveInput,
    e: &'a DataEnum,
    names: &[String],
) -> Option<Vec<(&'a syn::Ident, String)>> {
    if !input.generics.params.is_empty()
        || !only_plain_keys(&input.attrs, &["rename_all"])
        || names.len() != e.variants.len()
    {
        return None;
    }
    e.variants
        .iter()
        .zip(names)
        .map(|(v, n)| {
            let plain = matches!(v.fields, Fields::Unit) && only_plain_keys(&v.attrs, &["rename"]);
            plain.then(|| (&v.ident, n.clone()))
        })
        .collect()
}

/// `impl DirectValue` and `impl DirectElement` for a unit enum: the name
/// read (and checked against the contract) mapped to its variant.
pub(crate) fn enum_impl(
    ident: &syn::Ident,
    variants: &[(&syn::Ident, String)],
    krate: &syn::Path,
) -> TokenStream {
    let arms: Vec<_> = variants
        .iter()
        .map(|(v, n)| quote!(#n => ::core::option::Option::Some(#ident::#v),))
        .collect();
    let pick = quote! {
        |__name: &str| match __name {
            #(#arms)*
            _ => ::core::option::Option::None,
        }
    };
    // the names packed for a search with no branch on which name it is
    // (ADR 0066): none when a name does not fit in a word
    let names: Vec<&String> = variants.iter().map(|(_, n)| n).collect();
    let packed = if names.iter().all(|n| n.len() <= 15) {
        quote!(#(#krate::__private::direct::pack_name(#names)),*)
    } else {
        quote!()
    };
    let index_arms: Vec<_> = variants
        .iter()
        .enumerate()
        .map(|(k, (v, _))| quote!(#k => ::core::option::Option::Some(#ident::#v),))
        .collect();
    let by_index = quote! {
        |__k: usize| match __k {
            #(#index_arms)*
            _ => ::core::option::Option::None,
        }
    };
    quote! {
        #[automatically_derived]
        impl<'de> #krate::__private::direct::DirectValue<'de> for #ident
        where
            #ident: #krate::__private::serde::Deserialize<'de>,
        {
            #[inline]
            fn read_direct(
                __field: #krate::__private::direct::DirectField<'_, '_, 'de, '_>,
            ) -> #krate::Result<Self> {
                const __NAMES: &[u128] = &[#packed];
                __field.enum_value_named(__NAMES, #by_index, #pick)
            }
        }

        #[automatically_derived]
        impl<'de> #krate::__private::direct::DirectElement<'de> for #ident
        where
            #ident: #krate::__private::serde::Deserialize<'de>,
        {
            #[inline]
            fn read_element(
                __list: &mut #krate::__private::direct::ListElements<'_, '_, 'de, '_>,
                __k: usize,
            ) -> #krate::Result<Self> {
                __list.enum_element(__k, #pick)
            }
        }
    }
}
