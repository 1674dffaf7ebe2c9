// CUTLASS oracle of make_gmma_desc on sm_90 K-major tiles, for tests/oracles/test_cutlass_gmma_desc_oracle.py.
//
// Built by the test (host only) against the headers of the PyPI wheel nvidia-cutlass==4.2.0.0
// (cute/atom/mma_traits_sm90_gmma.hpp).  For each tile: "TILE <print>" (the tensor as CuTe prints
// it), then "WORD <hex>" of GMMA::make_gmma_desc<Major::K> on each MMA's partition (local_tile of
// one MMA's K).  On the host the start address is not computed (cast_smem_ptr_to_uint is
// device-only): the words carry LBO, SBO, base offset and layout type, start address 0.
#include <cstdio>
#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>

using namespace cute;
namespace GMMA = cute::SM90::GMMA;

template <class T, class Tile, class Mma>
void tile(Tile layout, Mma mma, int addr, int n_k) {
  auto t = make_tensor(make_smem_ptr(reinterpret_cast<T*>(uintptr_t(addr))), layout);
  std::printf("TILE ");
  print(t);
  std::printf("\n");
  for (int k = 0; k < n_k; ++k) {
    auto d = GMMA::make_gmma_desc<GMMA::Major::K>(local_tile(t, mma, make_coord(0, k)));
    std::printf("WORD %llx\n", (unsigned long long)d.desc_);
  }
}

int main() {
  // wgmma .b1: one 128B swizzle row holds 1024 bits, K=256 per MMA
  tile<uint1b_t>(tile_to_shape(GMMA::Layout_K_SW128_Atom<uint1b_t>{}, make_shape(Int<64>{}, Int<1024>{})),
                 make_shape(Int<64>{}, Int<256>{}), 0x400, 4);
  // a 64B-swizzled f16 stage whose K=64 is two swizzle atoms along K (CUTLASS's K-first order)
  tile<half_t>(tile_to_shape(GMMA::Layout_K_SW64_Atom<half_t>{}, make_shape(Int<64>{}, Int<64>{}),
                             Step<_2, _1>{}),
               make_shape(Int<64>{}, Int<16>{}), 0, 4);
  return 0;
}
