// `C<N>` has a type-level form for the values of its table; another value
// is refused with what to write instead.
use layout_core::{coalesce, Layout, C};

fn main() {
    let l = Layout::new((C::<1100>, C::<4>), (C::<1>, C::<1100>));
    let _ = coalesce(l);
}
