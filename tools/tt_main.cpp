// `tt`: the tensortune command line. The commands live in the tensortune::cli
// library (tools/tt), so that a user's own executable can offer them too.
#include <tensortune/cli.h>

int main(int argc, char** argv) { return tt::cli::main(argc, argv); }
