//! The check bodies run under the block emulator (`wgmma` computed from
//! its descriptors and the atom's layouts), and the host's check passes
//! them: one atom of each operand form and input width, at N of CuTe's
//! default header and of its extended one, B K- and N-major for 16-bit
//! inputs, mixed 8-bit pairings and a saturating integer form. What the GPU's own instruction does with each
//! layout is `gpu-runner gmma-atoms`'s to check.

use layout_device::emulator::{run, Buffer, Launch};
use layout_device::F4;
use layout_kernels_sm90_gmma::{gmma_check_body, host, ATOMS};

fn chunks(words: &[u32]) -> Vec<F4> {
    words
        .chunks(4)
        .map(|w| F4([0, 1, 2, 3].map(|i| f32::from_bits(w[i]))))
        .collect()
}

macro_rules! emulate {
    ($($atom:ident $n:literal $k:literal $mn:literal;)*) => {$({
        let name = stringify!($atom);
        let atom = ATOMS.iter().find(|a| a.name == name).expect("in the table");
        assert_eq!((atom.n, atom.k), ($n, $k), "{name}");
        let case = host::case(atom);
        let (a4, aw) = (Buffer::from_slice(&chunks(&case.a)), Buffer::from_slice(&case.a));
        let (b4, bw) = (Buffer::from_slice(&chunks(&case.b)), Buffer::from_slice(&case.b));
        let c = Buffer::filled(u32::MAX, 64 * $n);
        let (ga4, gaw, gb4, gbw, gc) =
            (a4.global(), aw.global(), b4.global(), bw.global(), c.global_mut());
        let launch = Launch::new(name, 1, 128);
        if let Err(e) = run(&launch, move || {
            gmma_check_body::<layout_core::atom::$atom, _, _, _, _, $n, $k, $mn>(ga4, gaw, (gb4, gbw), gc)
        }) {
            panic!("{name}: {e}")
        }
        let (wrong, first) = host::check(atom, &case, &c.to_vec(), 4);
        assert_eq!(wrong, 0, "{name}: {first:?}");
    })*};
}

#[test]
fn check_bodies_pass_under_the_emulator() {
    emulate! {
        SM90_64x64x16_F32F16F16_SS 64 16 false;
        SM90_64x64x16_F32F16F16_SS 64 16 true;
        SM90_64x24x16_F16F16F16_RS 24 16 false;
        SM90_64x24x16_F16F16F16_RS 24 16 true;
        SM90_64x136x16_F32BF16BF16_SS 136 16 true;
        SM90_64x40x8_F32TF32TF32_RS_TN 40 8 false;
        SM90_64x200x32_F32E4M3E5M2_RS_TN 200 32 false;
        SM90_64x8x32_F16E5M2E4M3_SS_TN 8 32 false;
        SM90_64x48x32_S32U8S8_RS_TN_SATURATE 48 32 false;
        SM90_64x256x32_S32S8U8_SS_TN 256 32 false;
    }
}
