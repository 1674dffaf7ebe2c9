// CUTLASS oracle of the sm_90 wgmma matrix descriptor, for tests/test_cutlass_gmma_oracle.py.
//
// Built by the test (host only) against the headers of the PyPI wheel nvidia-cutlass==4.2.0.0.
// Every word printed comes from cute/arch/mma_sm90_desc.hpp (cute::GmmaDescriptor; its LayoutType in cute::SM90::GMMA):
//
//   oracle static  -- ENUM LayoutType NAME CODE for every code to_string(GMMA::LayoutType) names
//   oracle stdin   -- one line "start lbo sbo base_offset layout_type" of raw field values, each
//                     assigned to GmmaDescriptor's bitfields at run time; prints the word in hex
#include <cstdint>
#include <cstdio>

#include <cute/arch/mma_sm90_desc.hpp>

using namespace cute;
namespace GMMA = cute::SM90::GMMA;

int main(int argc, char** argv) {
  if (argc > 1 && argv[1][0] == 's' && argv[1][1] == 't' && argv[1][2] == 'a') {  // static
    for (int v = 0; v < 4; ++v) {
      char const* s = GMMA::to_string(GMMA::LayoutType(v));
      if (s != nullptr) std::printf("ENUM LayoutType %s %d\n", s, v);
    }
    return 0;
  }
  unsigned start, lbo, sbo, base, layout;
  while (std::scanf("%u %u %u %u %u", &start, &lbo, &sbo, &base, &layout) == 5) {
    cute::GmmaDescriptor d;
    d.bitfield.start_address_ = start;
    d.bitfield.leading_byte_offset_ = lbo;
    d.bitfield.stride_byte_offset_ = sbo;
    d.bitfield.base_offset_ = base;
    d.bitfield.layout_type_ = layout;
    std::printf("%llx\n", (unsigned long long)d.desc_);
  }
  return 0;
}
