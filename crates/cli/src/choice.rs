//! A flag's value as one of the scenario's enums, its case ignored as NCCL ignores it.
//!
//! NCCL reads `NCCL_ALGO` and `NCCL_PROTO` with `strcasecmp` (`src/graph/tuning.cc`,
//! `parseList`): `NCCL_ALGO=ring` is Ring. The flags that stand for them, and the others naming
//! a variant (`--fabric RoCE`), take any case too; a scenario file keeps the exact names.

use fabricscope::ScenarioError;
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

/// A value of one of the scenario's enums from its name in any case, or an error naming the flag.
pub fn choice<T: DeserializeOwned>(flag: &str, field: &str, value: &str) -> Result<T, ScenarioError> {
    let parse = |name: &str| serde_json::from_value::<T>(serde_json::Value::String(name.to_string()));
    parse(value).or_else(|error| {
        let folded = variants::<T>().iter().find(|name| name.eq_ignore_ascii_case(value));
        folded.map_or(Err(error), |name| parse(name)).map_err(|error| ScenarioError {
            field: field.into(),
            problem: format!("{flag} {value}: {error}"),
        })
    })
}

/// The variant names enum `T` deserialises from (empty if `T` is not an enum): what its
/// `Deserialize` hands `deserialize_enum`.
fn variants<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut probe = Probe(&[]);
    let _ = T::deserialize(&mut probe);
    probe.0
}

/// A deserializer that keeps the variant names it is asked for and gives nothing.
struct Probe(&'static [&'static str]);

#[derive(Debug)]
struct Nothing;

impl std::fmt::Display for Nothing {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("only the variant names were asked for")
    }
}

impl std::error::Error for Nothing {}

impl de::Error for Nothing {
    fn custom<M: std::fmt::Display>(_: M) -> Nothing {
        Nothing
    }
}

impl<'de> Deserializer<'de> for &mut Probe {
    type Error = Nothing;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Nothing> {
        Err(Nothing)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Nothing> {
        self.0 = variants;
        Err(Nothing)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::choice;
    use fabricscope::catalog::Technology;
    use fabricscope::scenario::{Algorithm, Protocol};

    #[test]
    fn names_are_taken_in_any_case_as_nccl_takes_them() {
        assert_eq!(choice::<Algorithm>("--algo", "algorithm", "ring").unwrap(), Algorithm::Ring);
        assert_eq!(choice::<Algorithm>("--algo", "algorithm", "nvlstree").unwrap(), Algorithm::NvlsTree);
        assert_eq!(choice::<Algorithm>("--algo", "algorithm", "NVLSTree").unwrap(), Algorithm::NvlsTree);
        assert_eq!(choice::<Protocol>("--proto", "protocol", "ll128").unwrap(), Protocol::Ll128);
        assert_eq!(choice::<Technology>("--fabric", "fabric.technology", "RoCE").unwrap(), Technology::Roce);
    }

    #[test]
    fn an_unknown_name_names_the_flag_and_what_it_takes() {
        let error = choice::<Algorithm>("--algo", "algorithm", "rings").unwrap_err();
        assert_eq!(error.field, "algorithm");
        assert!(error.problem.starts_with("--algo rings: unknown variant `rings`"), "{}", error.problem);
        assert!(error.problem.contains("`Ring`"), "{}", error.problem);
    }
}
