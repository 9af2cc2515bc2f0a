//! A training job's validation errors as (field, problem) pairs, and whether one names a field
//! with given words: what the tests of refused layouts ask.

use fabricscope::train::TrainScenario;

/// Every problem `job` is refused with (it must be refused).
pub fn problems(job: &TrainScenario) -> Vec<(String, String)> {
    job.validate().expect_err("refused").into_iter().map(|e| (e.field, e.problem)).collect()
}

/// Whether `list` has a problem on `field` that says `words`.
pub fn has(list: &[(String, String)], field: &str, words: &str) -> bool {
    list.iter().any(|(f, p)| f == field && p.contains(words))
}
