//! What a GPU instruction does on the host outside an emulated run: a
//! panic naming it. (Its own module: the hardware layer and the emulator
//! both use it, and neither imports the other for it.)

/// What a GPU instruction does when called on the host.
#[cold]
#[track_caller]
pub(crate) fn gpu_only(what: &str) -> ! {
    panic!("{what} is a GPU instruction: it runs in a kernel (or the emulator), not on the host")
}
