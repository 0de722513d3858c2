// Prints CuTe's Hopper GMMA atoms as golden records (JSON Lines, the
// format of tests/golden/data): for each atom and member, the printed
// layout and its 1-D table (left out above 2048 entries).
//
// Built host-only with g++ by gen-gmma.sh; CUTLASS 7107b05.
#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cstdio>
using namespace cute;
using namespace cute::SM90::GMMA;

template <class L>
void record(char const* atom, char const* member, L l) {
  printf("{\"id\":\"mma-atom-%s-%s\",\"op\":\"mma_atom\",\"args\":[\"%s\",\"%s\"],\"result\":\"",
         atom, member, atom, member);
  print(l);
  printf("\"");
  if constexpr (is_layout<L>::value) {
    if (size(l) <= 2048) {
      printf(",\"table\":[");
      for (int i = 0; i < size(l); ++i) printf(i ? ",%d" : "%d", int(l(i)));
      printf("]");
    } else {
      printf(",\"table_omitted\":true");
    }
  }
  printf("}\n");
}

template <class Op>
void atom(char const* name) {
  using T = MMA_Traits<Op>;
  record(name, "ThrID", typename T::ThrID{});
  record(name, "Shape_MNK", typename T::Shape_MNK{});
  record(name, "ALayout", typename T::ALayout{});
  record(name, "BLayout", typename T::BLayout{});
  record(name, "CLayout", typename T::CLayout{});
}

// Our names (CuTe's older spelling) for CuTe 4.7's SM90::GMMA::MMA_64xNx16_*.
#define ATOMS(N)                                                                    \
  atom<MMA_64x##N##x16_F32F16F16_SS<Major::K, Major::K>>("SM90_64x" #N "x16_F32F16F16_SS");   \
  atom<MMA_64x##N##x16_F16F16F16_SS<Major::K, Major::K>>("SM90_64x" #N "x16_F16F16F16_SS");   \
  atom<MMA_64x##N##x16_F32BF16BF16_SS<Major::K, Major::K>>("SM90_64x" #N "x16_F32BF16BF16_SS");

int main() {
  ATOMS(8) ATOMS(16) ATOMS(32) ATOMS(64) ATOMS(96) ATOMS(128) ATOMS(192) ATOMS(256)
}
