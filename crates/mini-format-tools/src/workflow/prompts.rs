//! The texts of the workflow's requests, in English and Spanish.

use crate::prompt::Lang;

/// The task, with the required record count when one is known.
pub(super) fn task(lang: Lang, task: &str, count: Option<usize>) -> String {
    let mut s = match lang {
        Lang::En => format!("Task:\n{}", task.trim_end()),
        Lang::Es => format!("Tarea:\n{}", task.trim_end()),
    };
    if let Some(n) = count {
        s.push_str(&match lang {
            Lang::En => format!("\nRequired record count: {n} (the header declares n={n})."),
            Lang::Es => {
                format!("\nNúmero de registros requerido: {n} (la cabecera declara n={n}).")
            }
        });
    }
    s.push_str(match lang {
        Lang::En => "\nAnswer with the .mini document only, in the format below.",
        Lang::Es => "\nResponde solo con el documento .mini, en el formato de abajo.",
    });
    s
}

/// A full regeneration: what was wrong with the previous answer.
pub(super) fn regenerate(lang: Lang, reason: &str) -> String {
    match lang {
        Lang::En => format!(
            "REGENERATION REQUEST: your previous answer could not be used: {reason}. Write the complete document again, starting with its header line, following the format exactly."
        ),
        Lang::Es => format!(
            "PETICIÓN DE REGENERACIÓN: tu respuesta anterior no se pudo usar: {reason}. Escribe de nuevo el documento completo, empezando por su línea de cabecera, siguiendo el formato exactamente."
        ),
    }
}

/// A continuation: the missing records only, under a given header line.
pub(super) fn continuation(
    lang: Lang,
    kept: usize,
    target: usize,
    missing: usize,
    kept_names: &str,
    header: &str,
) -> String {
    match lang {
        Lang::En => format!(
            "CONTINUATION REQUEST: the previous answer was cut at the output limit. {kept} of {target} records were received and kept; do not repeat them: {kept_names}.\nWrite ONLY the {missing} missing record(s), as a complete .mini document whose first line is exactly:\n{header}"
        ),
        Lang::Es => format!(
            "PETICIÓN DE CONTINUACIÓN: la respuesta anterior se cortó en el límite de salida. Se recibieron y conservaron {kept} de {target} registros; no los repitas: {kept_names}.\nEscribe SOLO los {missing} registro(s) que faltan, como un documento .mini completo cuya primera línea sea exactamente:\n{header}"
        ),
    }
}

/// The task as context of a repair request.
pub(super) fn repair_context(lang: Lang, task: &str) -> String {
    match lang {
        Lang::En => format!(
            "The document was written for this task (context only):\n{}",
            task.trim_end()
        ),
        Lang::Es => format!(
            "El documento se escribió para esta tarea (solo como contexto):\n{}",
            task.trim_end()
        ),
    }
}
