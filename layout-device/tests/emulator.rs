//! The block emulator against the PTX ISA's definitions: barriers,
//! shuffles, shared memory and its racecheck, `cp.async` groups, and the
//! tensor-core fragments written out from the ISA's tables (not from the
//! atoms the emulator reads), each with a hand-checkable expectation.

use layout_device::emulator::{run, Buffer, ErrorKind, Launch};
use layout_device::{
    block_idx, cp_async_commit, cp_async_wait, mma_m16n8k16_f16, mma_m16n8k16_f32, shfl_down,
    shfl_idx, sync_threads, sync_threads_divergent, sync_warp, thread_idx, trap, warp_any, Smem,
    F4,
};

layout_device::shared_memory!(static TILE: [u8; 4096]);
layout_device::shared_memory!(extern static DYN: [u8; 8192]);

/// `shfl.idx` reads lane `src & 31`; `shfl.down` lane `lane + d`, keeping
/// its own past lane 31; `vote.any` is the same in every lane.
#[test]
fn shuffles_follow_the_lane_rules() {
    let y = Buffer::filled(0u32, 3 * 32);
    let gy = y.global_mut();
    run(&Launch::new("shuffles", 1, 32), move || {
        let l = thread_idx() as u32;
        gy.st(l as usize, shfl_idx(100 + l, 37 - l));
        gy.st(32 + l as usize, shfl_down(100 + l, 5));
        gy.st(
            64 + l as usize,
            warp_any(l == 17) as u32 + warp_any(false) as u32,
        );
    })
    .unwrap();
    let v = y.to_vec();
    for l in 0..32u32 {
        assert_eq!(v[l as usize], 100 + ((37 - l) & 31), "idx, lane {l}");
        let down = if l + 5 <= 31 { l + 5 } else { l };
        assert_eq!(v[32 + l as usize], 100 + down, "down, lane {l}");
        assert_eq!(v[64 + l as usize], 1, "any, lane {l}");
    }
}

/// A block's threads exchange values through shared memory across a
/// barrier; every block has its own buffer.
#[test]
fn shared_memory_is_per_block_and_ordered_by_barriers() {
    let y = Buffer::filled(0f32, 2 * 64);
    let gy = y.global_mut();
    run(&Launch::new("rotate", 2, 64), move || {
        let (t, b) = (thread_idx(), block_idx().0);
        let s = Smem::window::<TILE>(0, 64);
        s.st(t, (100 * b + t) as f32);
        sync_threads();
        gy.st(64 * b + t, s.ld((t + 1) % 64));
    })
    .unwrap();
    let want: Vec<f32> = (0..128)
        .map(|i| (100 * (i / 64) + (i % 64 + 1) % 64) as f32)
        .collect();
    y.check(&want, |a, b| a == b).unwrap();
}

/// Without the barrier the same exchange is a race, named with both
/// threads and the word.
#[test]
fn a_missing_barrier_is_a_race() {
    let e = run(&Launch::new("rotate", 1, 64), move || {
        let t = thread_idx();
        let s = Smem::window::<TILE>(0, 64);
        s.st(t, t as f32);
        let _ = s.ld((t + 1) % 64);
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Race, "{e}");
    // Thread 0 reads word 1 before thread 1 has run: thread 1's write is
    // the access that finds thread 0's unordered read.
    assert_eq!(e.thread, Some(1), "{e}");
    assert!(
        e.message.contains("thread 0 (warp 0, lane 0)") && e.message.contains("0x4"),
        "{e}"
    );
    assert!(
        e.to_string()
            .starts_with("kernel `rotate`, block (0,0,0), thread 1"),
        "{e}"
    );
}

/// A barrier that one thread never reaches is a deadlock error naming the
/// barrier and the thread that left, not a hang.
#[test]
fn a_barrier_some_thread_skips_is_an_error() {
    let e = run(&Launch::new("early_exit", 1, 64), || {
        if thread_idx() == 5 {
            return;
        }
        sync_threads_divergent();
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
    assert!(
        e.message
            .contains("63 threads at the block barrier `sync_threads_divergent`"),
        "{e}"
    );
    assert!(
        e.message
            .contains("1 thread exited without reaching it (first: thread 5"),
        "{e}"
    );
}

/// Named barriers order the threads that reach them and no others: two
/// groups of 64 threads each exchange values through shared memory at
/// their own barrier (1 and 2), and neither waits for the other. Without
/// the barrier the same exchange is a race; counts that differ, a missing
/// thread or an id of 0 are errors, not hangs.
#[test]
fn named_barriers_order_their_threads() {
    use layout_device::named_barrier;
    let y = Buffer::filled(0f32, 128);
    let gy = y.global_mut();
    run(&Launch::new("groups", 1, 128), move || {
        let t = thread_idx();
        let (group, me) = (t / 64, t % 64);
        let s = Smem::window::<TILE>(64 * group, 64);
        s.st(me, (1000 * group + me) as f32);
        named_barrier(1 + group as u32, 64);
        gy.st(t, s.ld((me + 1) % 64));
    })
    .unwrap();
    let want: Vec<f32> = (0..128)
        .map(|t| (1000 * (t / 64) + (t % 64 + 1) % 64) as f32)
        .collect();
    y.check(&want, |a, b| a == b).unwrap();
    // Group 1's barrier orders group 1 only: reading group 0's word is a
    // race.
    let e = run(&Launch::new("groups", 1, 128), move || {
        let t = thread_idx();
        let s = Smem::window::<TILE>(0, 128);
        s.st(t, t as f32);
        named_barrier(1 + (t / 64) as u32, 64);
        let _ = s.ld((t + 64) % 128);
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Race, "{e}");
    let e = run(&Launch::new("counts", 1, 64), || {
        named_barrier(3, if thread_idx() < 32 { 64 } else { 32 });
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Divergence, "{e}");
    assert!(
        e.message
            .contains("named barrier 3 of 64 threads reached with a count of 32"),
        "{e}"
    );
    let e = run(&Launch::new("missing", 1, 64), || {
        if thread_idx() != 7 {
            named_barrier(2, 64);
        }
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
    assert!(e.message.contains("63 threads at named barrier 2"), "{e}");
    let e = run(&Launch::new("zero", 1, 32), || named_barrier(0, 32)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Trap, "{e}");
}

/// `barrier.arrive` signals without waiting: 64 producer threads write
/// shared memory and arrive at barrier 1; 64 consumer threads wait there
/// and read it (exact). A producer's write after its arrival is not
/// ordered before the reads: a race. Arriving twice before the barrier
/// completes is an error, and so is waiting for arrivals that never come.
#[test]
fn an_arrival_orders_what_came_before_it() {
    use layout_device::{named_barrier, named_barrier_arrive};
    let y = Buffer::filled(0f32, 64);
    let gy = y.global_mut();
    run(&Launch::new("signal", 1, 128), move || {
        let t = thread_idx();
        let s = Smem::window::<TILE>(0, 64);
        if t < 64 {
            s.st(t, (t * t) as f32);
            named_barrier_arrive(1, 128);
        } else {
            named_barrier(1, 128);
            gy.st(t - 64, s.ld(127 - t));
        }
    })
    .unwrap();
    let want: Vec<f32> = (0..64).map(|i| ((63 - i) * (63 - i)) as f32).collect();
    y.check(&want, |a, b| a == b).unwrap();
    let e = run(&Launch::new("late_write", 1, 128), move || {
        let t = thread_idx();
        let s = Smem::window::<TILE>(0, 64);
        if t < 64 {
            named_barrier_arrive(1, 128);
            s.st(t, 1.0);
        } else {
            named_barrier(1, 128);
            let _ = s.ld(t - 64);
        }
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Race, "{e}");
    let e = run(&Launch::new("twice", 1, 128), || {
        if thread_idx() < 32 {
            named_barrier_arrive(2, 128);
            named_barrier_arrive(2, 128);
        } else if thread_idx() < 96 {
            named_barrier(2, 128);
        }
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Divergence, "{e}");
    assert!(e.message.contains("named barrier 2 reached twice"), "{e}");
    let e = run(&Launch::new("unsignalled", 1, 64), || {
        if thread_idx() >= 32 {
            named_barrier(4, 64);
        }
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
}

/// `bar.sync` is `.aligned`: the lanes of a warp at two different calls of
/// it are refused (the GPU's behaviour there is undefined).
#[test]
// The two identical branches are the point: two call sites.
#[allow(clippy::if_same_then_else)]
fn an_aligned_barrier_from_two_sites_is_refused() {
    let e = run(&Launch::new("two_sites", 1, 32), || {
        if thread_idx() < 16 {
            sync_threads();
        } else {
            sync_threads();
        }
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Divergence, "{e}");
    // The same barrier without `.aligned` is fine.
    run(&Launch::new("two_sites", 1, 32), || {
        if thread_idx() < 16 {
            sync_threads_divergent();
        } else {
            sync_threads_divergent();
        }
    })
    .unwrap();
}

/// Lanes of one warp at different warp-wide instructions, and a full-mask
/// shuffle in a warp of 16 threads, are errors.
#[test]
fn diverged_lanes_and_partial_warps_are_refused() {
    let e = run(&Launch::new("diverge", 1, 32), || {
        if thread_idx() == 3 {
            sync_warp();
        } else {
            shfl_idx(1, 0);
        }
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Divergence, "{e}");
    assert!(
        e.message.contains("`sync_warp`") && e.message.contains("`shfl_idx`"),
        "{e}"
    );
    let e = run(&Launch::new("half_warp", 1, 16), || {
        shfl_idx(1, 0);
    })
    .unwrap_err();
    assert!(
        e.message.contains("(it has 16, a block of 16 threads)"),
        "{e}"
    );
}

/// A trap stops the run with the kernel, block and thread; so does a
/// dynamic buffer larger than the launch's dynamic shared memory.
#[test]
fn traps_name_the_kernel_block_and_thread() {
    let e = run(&Launch::new("checks", (3, 2), 64), || {
        if block_idx() == (2, 1) && thread_idx() == 40 {
            trap()
        }
    })
    .unwrap_err();
    assert_eq!(
        (e.kind, e.block, e.thread),
        (ErrorKind::Trap, (2, 1, 0), Some(40)),
        "{e}"
    );
    let small = Launch::new("dynamic", 1, 32).shared_bytes(4096);
    let e = run(&small, || {
        Smem::window::<DYN>(0, 4);
    })
    .unwrap_err();
    assert!(
        e.message.contains("8192 bytes") && e.message.contains("gave 4096"),
        "{e}"
    );
    run(&small.shared_bytes(8192), || {
        Smem::window::<DYN>(2000, 48).st(thread_idx(), 1.0);
    })
    .unwrap();
}

/// Global accesses go through live buffers only; a dropped buffer's
/// handle is refused; a mismatch names the thread that wrote the element.
#[test]
fn global_memory_is_checked_and_writers_are_named() {
    let gone = Buffer::from_slice(&[1.0f32; 8]).global();
    let e = run(&Launch::new("stale", 1, 32), move || {
        let _ = gone.ld(thread_idx() % 8);
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Global, "{e}");
    assert!(e.message.contains("dropped"), "{e}");
    let y = Buffer::filled(0u32, 64);
    let gy = y.global_mut();
    run(&Launch::new("writes", 2, 32), move || {
        let i = 32 * block_idx().0 + thread_idx();
        gy.st(i, if i == 45 { 7 } else { i as u32 });
    })
    .unwrap();
    let want: Vec<u32> = (0..64).collect();
    let m = y.check(&want, |a, b| a == b).unwrap_err();
    assert_eq!((m.index, m.writer), (45, Some(((1, 0, 0), 13))));
    assert_eq!(
        m.to_string(),
        "element 45 is Some(7), expected Some(45); written by thread 13 (warp 0, lane 13) of block (1,0,0)"
    );
}

/// `cp.async` writes its bytes when its group is waited for: a read after
/// the commit but before the wait still sees the old value.
#[test]
fn cp_async_lands_at_its_wait() {
    let x = Buffer::from_slice(&(0..128).map(|i| F4([i as f32; 4])).collect::<Vec<_>>());
    let y = Buffer::filled(0f32, 64);
    let (gx, gy) = (x.global(), y.global_mut());
    run(&Launch::new("cp_async", 1, 32), move || {
        let t = thread_idx();
        let s = Smem::window::<TILE>(0, 256);
        s.cp_async16(4 * t, gx.run::<2>(t, 64), 0);
        cp_async_commit();
        s.cp_async16(128 + 4 * t, gx.run::<2>(t, 64), 1);
        cp_async_commit();
        let before = s.ld(4 * t);
        cp_async_wait::<1>(); // the first group
        let first = s.ld(4 * t);
        let second_before = s.ld(128 + 4 * t);
        cp_async_wait::<0>();
        gy.st(t, before + first + second_before);
        gy.st(32 + t, s.ld(128 + 4 * t + 3));
    })
    .unwrap();
    let got = y.to_vec();
    for t in 0..32 {
        assert_eq!(got[t], t as f32, "thread {t}: 0, then t, then 0");
        assert_eq!(got[32 + t], (t + 64) as f32);
    }
}

/// The m16n8k16 fragments as the PTX ISA's tables give them (group g =
/// lane / 4, t = lane % 4): A's a0..a7 at rows g, g, g+8, g+8, g, g, g+8,
/// g+8 and columns 2t, 2t+1, 2t, 2t+1, 2t+8, 2t+9, 2t+8, 2t+9; B's b0..b3
/// at k = 2t, 2t+1, 2t+8, 2t+9, column n = g; C's c0..c3 at rows g, g,
/// g+8, g+8, columns 2t, 2t+1, 2t, 2t+1.
fn a_pos(l: usize, v: usize) -> (usize, usize) {
    let (g, t) = (l / 4, l % 4);
    (g + 8 * (v / 2 % 2), 2 * t + v % 2 + 8 * (v / 4))
}
fn b_pos(l: usize, v: usize) -> (usize, usize) {
    (2 * (l % 4) + v % 2 + 8 * (v / 2), l / 4)
}
fn c_pos(l: usize, v: usize) -> (usize, usize) {
    (l / 4 + 8 * (v / 2), 2 * (l % 4) + v % 2)
}

/// Integer-valued f16 operands: the emulated `mma.sync` (f32 and f16
/// accumulators) equals the exact product, as the GPU's does.
#[test]
fn mma_sync_computes_the_isa_fragments_product() {
    let a = |m: usize, k: usize| ((m * 7 + k * 3) % 11) as f32 - 5.0;
    let b = |k: usize, n: usize| ((k * 5 + n * 2) % 7) as f32 - 3.0;
    let c = |m: usize, n: usize| (m as f32) - (n as f32);
    let h = |x: f32| u32::from(half::f16::from_f32(x).to_bits());
    let y = Buffer::filled(0f32, 32 * 4);
    let y16 = Buffer::filled(0u32, 32 * 2);
    let (gy, gy16) = (y.global_mut(), y16.global_mut());
    run(&Launch::new("mma", 1, 32), move || {
        let l = thread_idx();
        let ar: [u32; 4] = core::array::from_fn(|r| {
            let (p, q) = (a_pos(l, 2 * r), a_pos(l, 2 * r + 1));
            h(a(p.0, p.1)) | h(a(q.0, q.1)) << 16
        });
        let br: [u32; 2] = core::array::from_fn(|r| {
            let (p, q) = (b_pos(l, 2 * r), b_pos(l, 2 * r + 1));
            h(b(p.0, p.1)) | h(b(q.0, q.1)) << 16
        });
        let cr: [f32; 4] = core::array::from_fn(|v| c(c_pos(l, v).0, c_pos(l, v).1));
        let d = mma_m16n8k16_f32(ar, br, cr);
        let c16 = [h(cr[0]) | h(cr[1]) << 16, h(cr[2]) | h(cr[3]) << 16];
        let d16 = mma_m16n8k16_f16(ar, br, c16);
        for (v, x) in d.into_iter().enumerate() {
            gy.st(4 * l + v, x);
        }
        gy16.st(2 * l, d16[0]);
        gy16.st(2 * l + 1, d16[1]);
    })
    .unwrap();
    let (d, d16) = (y.to_vec(), y16.to_vec());
    for l in 0..32 {
        for v in 0..4 {
            let (m, n) = c_pos(l, v);
            let want = (0..16).map(|k| a(m, k) * b(k, n)).sum::<f32>() + c(m, n);
            assert_eq!(d[4 * l + v], want, "lane {l}, c{v} = D({m},{n})");
            let half = (d16[2 * l + v / 2] >> (16 * (v % 2))) as u16;
            assert_eq!(
                half::f16::from_bits(half).to_f32(),
                want,
                "f16, lane {l}, c{v}"
            );
        }
    }
}

/// `ldmatrix` as the ISA defines it: lanes 8j..8j+7 give the rows of
/// matrix j; lane l receives row l/4, columns 2(l%4) and +1 of each matrix
/// (`.trans`: rows 2(l%4) and +1 of column l/4).
#[test]
fn ldmatrix_delivers_the_isa_fragments() {
    // Matrix j, row r, column c holds 1000 j + 10 r + c (as u16), rows
    // 16 bytes apart, matrices 128 bytes apart.
    let y = Buffer::filled(0u32, 32 * 8);
    let gy = y.global_mut();
    run(&Launch::new("ldmatrix", 1, 32), move || {
        let l = thread_idx();
        let s = Smem::window::<TILE>(0, 1024);
        let hs = s.halves();
        for e in 0..16 {
            let i = 16 * l + e; // element i of 512
            let (j, r, c) = (i / 64, i / 8 % 8, i % 8);
            hs.st(i, (1000 * j + 10 * r + c) as u16);
        }
        sync_threads();
        let n = s.ldmatrix_x4(4 * l); // lane l names row l of all four: 16 bytes each
        let t = s.ldmatrix_x4_trans(4 * l);
        for j in 0..4 {
            gy.st(8 * l + j, n[j]);
            gy.st(8 * l + 4 + j, t[j]);
        }
    })
    .unwrap();
    let v = y.to_vec();
    let pair = |x: u32| (x & 0xffff, x >> 16);
    for l in 0..32u32 {
        for j in 0..4u32 {
            let (r, c) = (l / 4, 2 * (l % 4));
            let n = pair(v[(8 * l + j) as usize]);
            assert_eq!(
                n,
                (1000 * j + 10 * r + c, 1000 * j + 10 * r + c + 1),
                "lane {l}, x4 {j}"
            );
            let (rt, ct) = (2 * (l % 4), l / 4);
            let t = pair(v[(8 * l + 4 + j) as usize]);
            assert_eq!(
                t,
                (1000 * j + 10 * rt + ct, 1000 * j + 10 * (rt + 1) + ct),
                "lane {l}, trans {j}"
            );
        }
    }
}

/// A TMA load as the hardware defines it: the box at (col, row), row r's
/// 16-byte chunk j at byte `128 r + 16 (j ^ (r % 8))` (the 128-byte
/// swizzle), zeros where the box leaves the matrix; its bytes complete
/// the barrier's phase, which the waiting threads then see.
#[test]
fn tma_loads_swizzle_and_fill_the_box() {
    use layout_device::emulator::{TensorMap, TmaSwizzle};
    use layout_device::{fence_mbarrier_init, tma_load_2d, Mbarrier};
    // A 20 x 72 matrix of u16, element (r, c) = 100 r + c.
    let (rows, cols) = (20usize, 72usize);
    let a = Buffer::from_slice(
        &(0..rows * cols)
            .map(|i| (100 * (i / cols) + i % cols) as u16)
            .collect::<Vec<_>>(),
    );
    let map = TensorMap::tiled_2d(&a, (rows, cols), cols, (8, 64), TmaSwizzle::B128).unwrap();
    let out = Buffer::filled(0u32, 8 * 32);
    let (m, g) = (map.ptr() as u64, out.global_mut());
    run(&Launch::new("tma", 1, 128).shared_bytes(8192), move || {
        let t = thread_idx();
        let bar = Mbarrier::at(Smem::window::<DYN>(1024, 2), 0);
        if t == 0 {
            bar.init(1);
            fence_mbarrier_init();
        }
        sync_threads();
        if t == 0 {
            bar.arrive_expect_tx(8 * 128);
            // Columns 32..96 (past 72: zeros) of rows 16..24 (past 20: zeros).
            tma_load_2d(Smem::window::<DYN>(0, 256), 8 * 128, m, (32, 16), bar);
        }
        bar.wait(0);
        // Thread t reads word t and t + 128 of the box (2 halves each).
        for w in [t, t + 128] {
            g.st(
                w,
                Smem::window::<DYN>(0, 256).halves().ld(2 * w) as u32
                    | (Smem::window::<DYN>(0, 256).halves().ld(2 * w + 1) as u32) << 16,
            );
        }
    })
    .unwrap();
    let got = out.to_vec();
    for r in 0..8usize {
        for c in 0..64usize {
            let (gr, gc) = (16 + r, 32 + c);
            let want = if gr < rows && gc < cols {
                (100 * gr + gc) as u32
            } else {
                0
            };
            let byte = 128 * r + 16 * ((c / 8) ^ (r % 8)) + 2 * (c % 8);
            let half = (got[byte / 4] >> (16 * (byte / 2 % 2))) & 0xffff;
            assert_eq!(half, want, "box ({r},{c})");
        }
    }
}

/// A phase whose bytes never arrive: the waiting threads are a deadlock
/// error naming the poll, not a hang; more bytes than expected is refused.
#[test]
fn mbarrier_phases_are_checked() {
    use layout_device::Mbarrier;
    let e = run(&Launch::new("never", 1, 32).shared_bytes(8192), || {
        let bar = Mbarrier::at(Smem::window::<DYN>(0, 2), 0);
        if thread_idx() == 0 {
            bar.init(1);
        }
        sync_threads();
        if thread_idx() == 0 {
            bar.arrive_expect_tx(64);
        }
        bar.wait(0);
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
    assert!(
        e.message
            .contains("32 threads polling `Mbarrier::try_wait`"),
        "{e}"
    );
    // A wait on a barrier never initialised is refused.
    let e = run(&Launch::new("uninit", 1, 32).shared_bytes(8192), || {
        Mbarrier::at(Smem::window::<DYN>(0, 2), 0).wait(0);
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Mbarrier, "{e}");
    assert!(e.message.contains("before `init`"), "{e}");
}

layout_device::shared_memory!(static GMMA: [u8; 20480]);

/// A bf16 `wgmma` (SS, N = 64): the warpgroup's accumulators are A·Bᵀ
/// exactly on small integers, each thread's values where the ISA's
/// fragment figure puts them (row 16 w + l / 4 + 8 ((v / 2) % 2), column 8
/// (v / 4) + 2 (l % 4) + v % 2 for warp w, lane l, value v). The operand
/// tiles are K-major with the 128-byte swizzle, written through the
/// descriptors' own element addresses.
#[test]
fn a_bf16_wgmma_computes_the_product() {
    bf16_wgmma(true).unwrap();
}

/// The same without `fence_proxy_async_shared` after the stores: the
/// tensor cores (the async proxy) may not see them, and the emulator
/// refuses the `wgmma`'s read, naming the storing thread and the word.
#[test]
fn a_wgmma_operand_stored_without_the_proxy_fence_is_refused() {
    let e = bf16_wgmma(false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Race, "{e}");
    assert!(
        e.message.contains("without a `fence_proxy_async_shared`"),
        "{e}"
    );
}

/// `a_bf16_wgmma_computes_the_product`'s kernel and check, the proxy
/// fence after the operands' stores or (`fenced` false) not.
fn bf16_wgmma(fenced: bool) -> Result<(), layout_device::emulator::EmuError> {
    use layout_core::atom::gmma::{GmmaDescriptor, LayoutType, Major};
    use layout_device::{sync_threads, wgmma_m64n64k16_f32_bf16};
    let a = |m: usize, k: usize| ((m * 3 + k * 5) % 9) as f32 - 4.0;
    let b = |n: usize, k: usize| ((n * 7 + k) % 5) as f32 - 2.0;
    let bf = |x: f32| half::bf16::from_f32(x).to_bits();
    let out = Buffer::filled(0f32, 128 * 32);
    let g = out.global_mut();
    run(&Launch::new("wgmma_bf16", 1, 128), move || {
        let t = thread_idx();
        let all = Smem::window::<GMMA>(0, 20480 / 4);
        let skip = ((1024 - all.address() % 1024) % 1024 / 4) as usize;
        let base = all.address() + 4 * skip as u32;
        let (da, db) = (
            GmmaDescriptor::new(base, 1, 64, LayoutType::B128),
            GmmaDescriptor::new(base + 8192, 1, 64, LayoutType::B128),
        );
        let halves = Smem::window::<GMMA>(skip, 16384 / 4).halves();
        // Thread t writes row t % 64 of A (t < 64) or of B.
        let (row, desc, val): (usize, GmmaDescriptor, &dyn Fn(usize, usize) -> f32) = if t < 64 {
            (t, da, &a)
        } else {
            (t - 64, db, &b)
        };
        for k in 0..16 {
            let at = (desc.element_address(Major::K, (row, k)) - base) / 2;
            halves.st(at as usize, bf(val(row, k)));
        }
        if fenced {
            layout_device::fence_proxy_async_shared();
        }
        sync_threads();
        let mut acc = [0f32; 32];
        wgmma_m64n64k16_f32_bf16(da.bits(), db.bits(), &mut acc, false);
        for (v, x) in acc.into_iter().enumerate() {
            g.st(32 * t + v, x);
        }
    })?;
    let got = out.to_vec();
    for t in 0..128 {
        let (w, l) = (t / 32, t % 32);
        for v in 0..32 {
            let (m, n) = (
                16 * w + l / 4 + 8 * ((v / 2) % 2),
                8 * (v / 4) + 2 * (l % 4) + v % 2,
            );
            let want: f32 = (0..16).map(|k| a(m, k) * b(n, k)).sum();
            assert_eq!(got[32 * t + v], want, "thread {t}, value {v}: D({m},{n})");
        }
    }
    Ok(())
}

/// A TMA store writes the box from shared memory (laid out as a load lays
/// it, 128-byte swizzle) into the matrix, and nothing past its edges.
#[test]
fn tma_stores_write_the_box_inside_the_matrix() {
    use layout_device::emulator::{TensorMap, TmaSwizzle};
    use layout_device::{
        elect_one, fence_proxy_async_shared, tma_store_2d, tma_store_commit, tma_store_wait,
    };
    let (rows, cols) = (20usize, 72usize);
    let c = Buffer::filled(7u16, rows * cols);
    let map = TensorMap::tiled_2d(&c, (rows, cols), cols, (8, 64), TmaSwizzle::B128).unwrap();
    let m = map.ptr() as u64;
    run(
        &Launch::new("tma_store", 1, 128).shared_bytes(8192),
        move || {
            let t = thread_idx();
            let tile = Smem::window::<DYN>(0, 256).halves();
            // Box element (r, c) = 1000 + 64 r + c, at its swizzled place.
            for e in [t, t + 128, t + 256, t + 384] {
                let (r, col) = (e / 64, e % 64);
                let byte = 128 * r + 16 * ((col / 8) ^ (r % 8)) + 2 * (col % 8);
                tile.st(byte / 2, (1000 + e) as u16);
            }
            fence_proxy_async_shared();
            sync_threads();
            if t < 32 && elect_one() {
                // Rows 16..24 (past 20: dropped), columns 32..96 (past 72).
                tma_store_2d(Smem::window::<DYN>(0, 256), 8 * 128, m, (32, 16));
                tma_store_commit();
                tma_store_wait::<0>();
            }
        },
    )
    .unwrap();
    let got = c.to_vec();
    for r in 0..rows {
        for col in 0..cols {
            let inside = (16..24).contains(&r) && (32..96).contains(&col);
            let want = if inside {
                (1000 + 64 * (r - 16) + col - 32) as u16
            } else {
                7
            };
            assert_eq!(got[r * cols + col], want, "({r},{col})");
        }
    }
    // Its writer is the elected lane 0.
    assert_eq!(c.writer(16 * cols + 32), Some(((0, 0, 0), 0)));
}

/// Through the table's generic form: an RS `wgmma` at N = 8 with f16
/// accumulators (`SM90_64x8x16_F16F16F16_RS`), A in registers as the ISA's
/// A fragment figure places it (thread t = 32 w + l, value v at row 16 w +
/// l / 4 + 8 ((v / 2) % 2), column 2 (l % 4) + v % 2 + 8 (v / 4)), B
/// N-major in shared memory without swizzle, accumulating onto C.
#[test]
fn an_rs_wgmma_with_f16_accumulators() {
    use layout_core::atom::gmma::{GmmaDescriptor, LayoutType, Major};
    use layout_core::atom::SM90_64x8x16_F16F16F16_RS as Atom;
    use layout_device::{sync_threads, GmmaInstr};
    let a = |m: usize, k: usize| ((m + 2 * k) % 7) as f32 - 3.0;
    let b = |n: usize, k: usize| ((3 * n + k) % 5) as f32 - 2.0;
    let c = |m: usize, n: usize| (m % 3) as f32 - (n % 2) as f32;
    let h = |x: f32| u32::from(half::f16::from_f32(x).to_bits());
    let pos = |t: usize, v: usize| {
        let (w, l) = (t / 32, t % 32);
        (
            16 * w + l / 4 + 8 * ((v / 2) % 2),
            2 * (l % 4) + v % 2 + 8 * (v / 4),
        )
    };
    let out = Buffer::filled(0u32, 128 * 2);
    let g = out.global_mut();
    run(&Launch::new("wgmma_rs_f16", 1, 128), move || {
        let t = thread_idx();
        let all = Smem::window::<GMMA>(0, 20480 / 4);
        // B (8 x 16) N-major, no swizzle: LBO and SBO of the canonical
        // MN-major interleaved form (8 x 8 core matrices, 128 bytes each).
        let db = GmmaDescriptor::new(all.address(), 8, 8, LayoutType::Interleave);
        if t < 8 {
            for k in 0..16 {
                let at = (db.element_address(Major::MN, (t, k)) - all.address()) / 2;
                all.halves().st(at as usize, h(b(t, k)) as u16);
            }
        }
        layout_device::fence_proxy_async_shared();
        sync_threads();
        let regs: [u32; 4] = core::array::from_fn(|r| {
            let (p, q) = (pos(t, 2 * r), pos(t, 2 * r + 1));
            h(a(p.0, p.1)) | h(a(q.0, q.1)) << 16
        });
        // C: values v = 0..4 at the same places, columns < 8.
        let mut acc: [u32; 2] = core::array::from_fn(|r| {
            let (p, q) = (pos(t, 2 * r), pos(t, 2 * r + 1));
            h(c(p.0, p.1)) | h(c(q.0, q.1)) << 16
        });
        <Atom as GmmaInstr>::gmma::<true>(regs, db.bits(), &mut acc, true);
        g.st(2 * t, acc[0]);
        g.st(2 * t + 1, acc[1]);
    })
    .unwrap();
    let got = out.to_vec();
    for t in 0..128 {
        for v in 0..4 {
            let (m, n) = pos(t, v);
            let want: f32 = c(m, n) + (0..16).map(|k| a(m, k) * b(n, k)).sum::<f32>();
            let bits = (got[2 * t + v / 2] >> (16 * (v % 2))) as u16;
            assert_eq!(
                half::f16::from_bits(bits).to_f32(),
                want,
                "thread {t}, value {v}: D({m},{n})"
            );
        }
    }
}

/// e4m3 bits of a small integer (|x| <= 15: exact with 3 mantissa bits).
fn e4m3(x: i32) -> u8 {
    if x == 0 {
        return 0;
    }
    let (s, a) = (if x < 0 { 0x80u8 } else { 0 }, x.unsigned_abs());
    let e = 31 - a.leading_zeros(); // a = 2^e (1 + m / 8)
    let m = ((a << 3) >> e) & 7;
    s | ((e + 7) << 3) as u8 | m as u8
}

/// 8-bit and 32-bit GMMAs through the table (K-major, 128-byte swizzle,
/// the tiles written through `element_address_k_major`): e4m3 into f32
/// (SS, K = 32), s8 into s32 with A in registers (RS; the ISA's 8-bit A
/// fragment: thread 32 w + l holds rows 16 w + l / 4 (+ 8 in registers 1
/// and 3), bytes b of register r at k = 4 (l % 4) + b + 16 (r / 2)), and
/// tf32 into f32 (SS, K = 8), each exactly A·Bᵀ on small integers.
#[test]
fn fp8_int8_and_tf32_gmmas_compute_the_product() {
    use layout_core::atom::gmma::{GmmaDescriptor, LayoutType};
    use layout_core::atom::{
        SM90_64x64x32_F32E4M3E4M3_SS_TN as E4, SM90_64x64x32_S32S8S8_RS_TN as S8,
        SM90_64x64x8_F32TF32TF32_SS_TN as Tf,
    };
    use layout_device::{sync_threads, GmmaInstr};
    let a = |m: usize, k: usize| ((m * 5 + k * 3) % 15) as i32 - 7;
    let b = |n: usize, k: usize| ((n * 3 + k * 7) % 11) as i32 - 5;
    let pos = |t: usize, v: usize| {
        let (w, l) = (t / 32, t % 32);
        (
            16 * w + l / 4 + 8 * ((v / 2) % 2),
            8 * (v / 4) + 2 * (l % 4) + v % 2,
        )
    };
    let out = Buffer::filled(0u32, 3 * 128 * 32);
    let g = out.global_mut();
    run(&Launch::new("gmma_families", 1, 128), move || {
        let t = thread_idx();
        let all = Smem::window::<GMMA>(0, 20480 / 4);
        let skip = ((1024 - all.address() % 1024) % 1024 / 4) as usize;
        let base = all.address() + 4 * skip as u32;
        let bytes = Smem::window::<GMMA>(skip, 16384 / 4);
        let (da, db) = (
            GmmaDescriptor::new(base, 1, 64, LayoutType::B128),
            GmmaDescriptor::new(base + 8192, 1, 64, LayoutType::B128),
        );
        // Writes `v` (little-endian, `n` bytes) at shared address `at` as
        // 16-bit halves (the emulator's shared memory is byte-exact).
        let put = |at: u32, v: u32, n: usize| {
            let off = (at - base) as usize;
            let h = bytes.halves();
            for i in 0..n {
                let (word_half, shift) = ((off + i) / 2, 8 * ((off + i) % 2));
                let old = h.ld(word_half);
                let byte = ((v >> (8 * i)) & 0xff) as u16;
                h.st(word_half, (old & !(0xff << shift)) | (byte << shift));
            }
        };
        let (row, desc, val): (usize, GmmaDescriptor, &dyn Fn(usize, usize) -> i32) = if t < 64 {
            (t, da, &a)
        } else {
            (t - 64, db, &b)
        };
        // e4m3 operands (K = 32).
        for k in 0..32 {
            put(
                desc.element_address_k_major(1, (row, k)),
                u32::from(e4m3(val(row, k))),
                1,
            );
        }
        layout_device::fence_proxy_async_shared();
        sync_threads();
        let mut f = [0f32; 32];
        <E4 as GmmaInstr>::gmma::<false>(da.bits(), db.bits(), &mut f, false);
        for (v, x) in f.into_iter().enumerate() {
            g.st(32 * t + v, x.to_bits());
        }
        sync_threads();
        // s8: B in shared memory, A in registers.
        for k in 0..32 {
            put(
                desc.element_address_k_major(1, (row, k)),
                val(row, k) as i8 as u8 as u32,
                1,
            );
        }
        layout_device::fence_proxy_async_shared();
        sync_threads();
        let (w, l) = (t / 32, t % 32);
        let regs: [u32; 4] = core::array::from_fn(|r| {
            let m = 16 * w + l / 4 + 8 * (r % 2);
            (0..4).fold(0u32, |acc, byte| {
                let k = 4 * (l % 4) + byte + 16 * (r / 2);
                acc | u32::from(a(m, k) as i8 as u8) << (8 * byte)
            })
        });
        let mut s = [0i32; 32];
        <S8 as GmmaInstr>::gmma::<false>(regs, db.bits(), &mut s, false);
        for (v, x) in s.into_iter().enumerate() {
            g.st(4096 + 32 * t + v, x as u32);
        }
        sync_threads();
        // tf32 operands (K = 8).
        for k in 0..8 {
            put(
                desc.element_address_k_major(4, (row, k)),
                (val(row, k) as f32).to_bits(),
                4,
            );
        }
        layout_device::fence_proxy_async_shared();
        sync_threads();
        let mut f = [0f32; 32];
        <Tf as GmmaInstr>::gmma::<false>(da.bits(), db.bits(), &mut f, false);
        for (v, x) in f.into_iter().enumerate() {
            g.st(8192 + 32 * t + v, x.to_bits());
        }
    })
    .unwrap();
    let got = out.to_vec();
    for t in 0..128 {
        for v in 0..32 {
            let (m, n) = pos(t, v);
            let dot = |kk: usize| (0..kk).map(|k| a(m, k) * b(n, k)).sum::<i32>();
            assert_eq!(
                f32::from_bits(got[32 * t + v]),
                dot(32) as f32,
                "e4m3, thread {t}, value {v}"
            );
            assert_eq!(
                got[4096 + 32 * t + v] as i32,
                dot(32),
                "s8, thread {t}, value {v}"
            );
            assert_eq!(
                f32::from_bits(got[8192 + 32 * t + v]),
                dot(8) as f32,
                "tf32, thread {t}, value {v}"
            );
        }
    }
}

/// A TMA reduce-add adds the box (f32, 128-byte swizzle) into the matrix
/// inside its edges and leaves the rest; a prefetch of the same box
/// changes nothing.
#[test]
fn tma_reduce_adds_add_inside_the_matrix() {
    use layout_device::emulator::{TensorMap, TmaSwizzle};
    use layout_device::{tma_prefetch_2d, tma_reduce_add_2d, tma_store_commit, tma_store_wait};
    let (rows, cols) = (20usize, 40usize);
    let c = Buffer::filled(0.5f32, rows * cols);
    let map = TensorMap::tiled_2d(&c, (rows, cols), cols, (8, 32), TmaSwizzle::B128).unwrap();
    let m = map.ptr() as u64;
    run(
        &Launch::new("tma_reduce", 1, 128).shared_bytes(8192),
        move || {
            let t = thread_idx();
            let tile = Smem::window::<DYN>(0, 256);
            // Box element (r, c) = 1 + 32 r + c at its swizzled place.
            for e in [t, t + 128] {
                let (r, col) = (e / 32, e % 32);
                let byte = 128 * r + 16 * ((col / 4) ^ (r % 8)) + 4 * (col % 4);
                tile.st(byte / 4, (1 + e) as f32);
            }
            layout_device::fence_proxy_async_shared();
            sync_threads();
            if t == 0 {
                tma_prefetch_2d(m, (16, 16));
                tma_reduce_add_2d(Smem::window::<DYN>(0, 256), 8 * 128, m, (16, 16));
                tma_store_commit();
                tma_store_wait::<0>();
            }
        },
    )
    .unwrap();
    let got = c.to_vec();
    for r in 0..rows {
        for col in 0..cols {
            let inside = r >= 16 && col >= 16;
            let want = if inside {
                0.5 + (1 + 32 * (r - 16) + col - 16) as f32
            } else {
                0.5
            };
            assert_eq!(got[r * cols + col], want, "({r},{col})");
        }
    }
}

/// Shuffles and votes among a member mask: the lower half-warp alone, a
/// 16-thread block's only lanes; reading a lane outside the mask is
/// refused (its value is undefined), as is a mask naming lanes a warp
/// lacks.
#[test]
fn masked_shuffles_and_votes_take_the_lanes_of_their_mask() {
    use layout_device::{
        shfl_idx_sync, shfl_xor_sync, warp_all_sync, warp_any_sync, warp_ballot_sync,
    };
    let y = Buffer::filled(0u32, 4 * 32);
    let gy = y.global_mut();
    run(&Launch::new("masked", 1, 32), move || {
        let l = thread_idx() as u32;
        if l < 16 {
            let m = 0x0000_ffff;
            gy.st(l as usize, shfl_xor_sync(m, 100 + l, 1));
            gy.st(32 + l as usize, warp_ballot_sync(m, l % 3 == 0));
            gy.st(
                64 + l as usize,
                warp_all_sync(m, l < 16) as u32 + 2 * warp_any_sync(m, l == 99) as u32,
            );
        } else {
            // The upper half its own group, at another instruction.
            gy.st(96 + l as usize, shfl_idx_sync(0xffff_0000, l, 16));
        }
    })
    .unwrap();
    let v = y.to_vec();
    for l in 0..16u32 {
        assert_eq!(v[l as usize], 100 + (l ^ 1), "xor, lane {l}");
        assert_eq!(
            v[32 + l as usize],
            0b1001_0010_0100_1001,
            "ballot, lane {l}"
        );
        assert_eq!(v[64 + l as usize], 1, "all true, any false, lane {l}");
    }
    for l in 16..32usize {
        assert_eq!(v[96 + l], 16, "idx from lane 16, lane {l}");
    }
    // A 16-thread block: its own lanes are a valid mask.
    let z = Buffer::filled(0u32, 16);
    let gz = z.global_mut();
    run(&Launch::new("small", 1, 16), move || {
        let l = thread_idx() as u32;
        gz.st(l as usize, shfl_idx_sync(0xffff, l * 10, 15 - l));
    })
    .unwrap();
    assert_eq!(
        z.to_vec(),
        (0..16u32).map(|l| (15 - l) * 10).collect::<Vec<_>>()
    );
    let e = run(&Launch::new("outside", 1, 32), || {
        if thread_idx() < 16 {
            shfl_idx_sync(0xffff, 1, 20);
        }
    })
    .unwrap_err();
    assert!(
        e.message
            .contains("reads lane 20, which is not in the member mask"),
        "{e}"
    );
    let e = run(&Launch::new("missing", 1, 16), || {
        shfl_idx_sync(0xffff_ffff, 1, 0);
    })
    .unwrap_err();
    assert!(
        e.message.contains("names lanes that warp 0 does not have"),
        "{e}"
    );
}

/// A quad is its four values one by one (`apply_quad`'s definition),
/// for the fusions that override it, nested; `pre_quad` then the
/// activation is `apply_quad`; unpacking inverts packing.
#[test]
fn fusion_quads_are_four_values() {
    use layout_device::epilogue::{
        Alpha, Bf16, BiasCol, BiasRow, Fusion, Gelu, OutElem, Plain, Relu, Silu, F16,
    };
    let bias: Vec<u16> = (0..20)
        .map(|j| half::bf16::from_f32(j as f32 / 8.0 - 1.0).to_bits())
        .collect();
    let gb = Buffer::from_slice(&bias);
    let b = gb.global();
    let acc = [1.5f32, -2.25, 0.75, 3.0];
    fn check<F: Fusion>(f: F, acc: [f32; 4], (r, c): (usize, usize)) {
        let one = [
            f.apply(acc[0], r, c),
            f.apply(acc[1], r, c + 1),
            f.apply(acc[2], r + 8, c),
            f.apply(acc[3], r + 8, c + 1),
        ];
        assert_eq!(f.apply_quad(acc, r, c), one);
        assert_eq!(f.pre_quad(acc, r, c).map(|x| f.activation(x)), one);
    }
    for at in [(0, 0), (3, 6), (11, 18), (0, 19)] {
        check(
            BiasCol {
                bias: b,
                inner: Alpha(0.5),
            },
            acc,
            at,
        );
        check(
            BiasRow {
                bias: b,
                inner: Plain,
            },
            acc,
            at,
        );
        check(
            Gelu(BiasCol {
                bias: b,
                inner: Plain,
            }),
            acc,
            at,
        );
        check(
            Relu(BiasRow {
                bias: b,
                inner: Alpha(-1.0),
            }),
            acc,
            at,
        );
        check(
            Silu(Gelu(BiasCol {
                bias: b,
                inner: Plain,
            })),
            acc,
            at,
        );
        check(
            BiasCol {
                bias: b,
                inner: Gelu(Plain),
            },
            acc,
            at,
        );
    }
    assert!(
        Gelu(Plain).pre_quad(acc, 0, 0) == acc
            && !BiasCol {
                bias: b,
                inner: Gelu(Plain)
            }
            .pre_quad(acc, 0, 0)
            .iter()
            .zip(acc)
            .all(|(x, y)| *x == y)
    );
    for w in [0x3f80_c040u32, 0x0000_8000, 0x7f7f_0001] {
        let (lo, hi) = Bf16::unpack2(w);
        assert_eq!(Bf16::pack2(lo, hi), w);
        let (lo, hi) = F16::unpack2(w & 0x7bff_7bff);
        assert_eq!(F16::pack2(lo, hi), w & 0x7bff_7bff);
    }
}

/// `setmaxnreg` moves registers within the block's pool, fixed at launch:
/// 384 threads are launched with at most 65536 / 384 = 170, 168 in steps
/// of 8, so 168 x 384 = 64512. A producer warpgroup down to 24 frees 144 x
/// 128; two consumers up to 240 take 72 x 128 each: 24 + 2 x 240 = 504 =
/// 3 x 168, exact. Down to 48 and up to 232 (48 + 2 x 232 = 512 > 504),
/// the second increase never finds its registers: a deadlock, as on the
/// GPU. An increase below the count is refused.
#[test]
fn setmaxnreg_moves_registers_within_the_launch() {
    use layout_device::{setmaxnreg_dec, setmaxnreg_inc};
    fn split<const P: u32, const C: u32>() -> Result<(), layout_device::emulator::EmuError> {
        run(&Launch::new("split", 1, 384), || {
            if thread_idx() < 128 {
                setmaxnreg_dec::<P>();
            } else {
                setmaxnreg_inc::<C>();
            }
        })
    }
    split::<24, 240>().unwrap();
    split::<40, 232>().unwrap();
    split::<48, 224>().unwrap();
    let e = split::<48, 232>().unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
    assert!(e.message.contains("setmaxnreg_inc"), "{e}");
    // An increase to fewer than the thread has.
    let e = run(&Launch::new("shrink", 1, 384), setmaxnreg_inc::<160>).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Launch, "{e}");
}
