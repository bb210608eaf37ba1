//! The record writer the derive writes beside the direct reader (ADR
//! 0047): for a record struct, `impl DirectWriteRecord` (one call a field,
//! each naming its plan step; a marked list written with its selection);
//! for a document struct, the `Mini` method that hands its records to it.
//!
//! Written for the structs the direct reader reads (`direct::eligible`),
//! and only when each `#[mini(selected = "…")]` names the field right
//! after its list (serde gives the selection there; anywhere else serde's
//! walk and the general path write the record).

use proc_macro2::TokenStream;
use quote::quote;
use syn::{DataStruct, Fields, Type};

use crate::attr::{self, Errors};
use crate::direct::serde_name;

/// `impl DirectWriteRecord` for a record struct, or nothing.
pub(crate) fn record_impl(ident: &syn::Ident, s: &DataStruct, krate: &syn::Path) -> TokenStream {
    let Fields::Named(named) = &s.fields else {
        return TokenStream::new();
    };
    let fields: Vec<_> = named.named.iter().collect();
    let names: Vec<String> = fields
        .iter()
        .filter_map(|f| f.ident.as_ref().map(serde_name))
        .collect();
    if names.len() != fields.len() {
        return TokenStream::new();
    }
    // which fields are a selection: the one right after its marked list
    let mut selection = vec![false; fields.len()];
    for (k, f) in fields.iter().enumerate() {
        // the attributes' errors are reported by the contract's expansion
        let mini = attr::mini_field(&f.attrs, &mut Errors::default());
        if let Some(sel) = mini.selected {
            if names.get(k + 1) != Some(&sel.value()) {
                return TokenStream::new();
            }
            selection[k + 1] = true;
        }
    }
    let bound = quote! { #krate::__private::write::WriteBound<__W> };
    let mut writes = Vec::new();
    let mut step = 0usize;
    for (k, f) in fields.iter().enumerate() {
        if selection[k] {
            continue;
        }
        let (id, ty) = (&f.ident, &f.ty);
        let write = quote! { <#ty as #bound>::write_as(&self.#id, __w, #step)?; };
        if selection.get(k + 1) == Some(&true) {
            let (sel, sel_ty) = (&fields[k + 1].ident, &fields[k + 1].ty);
            writes.push(quote! {
                __w.select(<#sel_ty as #bound>::selection(&self.#sel)?);
                #write
                __w.selected()?;
            });
        } else {
            writes.push(write);
        }
        step += 1;
    }
    let types: Vec<&Type> = fields.iter().map(|f| &f.ty).collect();
    quote! {
        #[automatically_derived]
        impl<__W> #krate::__private::write::DirectWriteRecord<__W> for #ident
        where
            #(#types: #bound,)*
        {
            const SLOTS: &'static [(&'static str, bool)] = &[#((#names, #selection)),*];

            #[inline]
            fn write_fields(
                &self,
                __w: &mut #krate::__private::write::RecordWriter<'_, '_>,
            ) -> ::core::result::Result<(), #krate::__private::write::Bail> {
                #(#writes)*
                ::core::result::Result::Ok(())
            }
        }
    }
}

/// The `Mini` method of a document whose records are `records_field` (a
/// `Vec` of `item`): hands them to their derived writer, when they have
/// one.
pub(crate) fn document_method(
    records_field: &syn::Ident,
    item: &Type,
    krate: &syn::Path,
) -> TokenStream {
    quote! {
        fn __write_records(&self, __out: &mut #krate::__private::write::RecordsOut<'_, '_>) {
            #[allow(unused_imports)]
            use #krate::__private::write::{ViaDirectRecords as _, ViaSerdeRecords as _, WriteProbe};
            (&WriteProbe::<#item>::new()).write_records(&self.#records_field[..], __out)
        }
    }
}
