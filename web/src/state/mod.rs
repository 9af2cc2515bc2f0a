//! The page's state as pure reducers (`yew::Reducible`), tested natively: one per view.

pub mod collectives;
pub mod page_job;
pub mod slices;
pub mod training;

/// The page's two views.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// One collective on the cluster, step by step.
    Collectives,
    /// A training job laid out on the cluster.
    Training,
}

/// A value the state shares with components, equal to another only when it is the same value
/// (`Rc::ptr_eq`): props and effect dependencies key on a run or a report by identity, without
/// comparing it whole or turning its address into a number.
pub struct Shared<T>(pub std::rc::Rc<T>);

impl<T> Shared<T> {
    pub fn of(rc: &std::rc::Rc<T>) -> Shared<T> {
        Shared(rc.clone())
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::Shared;
    use std::rc::Rc;

    #[test]
    fn shared_values_are_equal_only_to_themselves() {
        let a = Rc::new(vec![1, 2]);
        let b = Rc::new(vec![1, 2]);
        assert!(Shared::of(&a) == Shared::of(&a));
        assert!(Shared::of(&a) != Shared::of(&b), "equal contents, another value");
    }
}
