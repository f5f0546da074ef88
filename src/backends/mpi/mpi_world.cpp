#include "backends/mpi/mpi_world.h"

#include <cstdio>
#include <cstdlib>

#include "backends/mpi/mpi_check.h"

namespace collbench::mpi {

void throw_mpi_error(int code, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int length = 0;
  MPI_Error_string(code, text, &length);
  int rank = -1;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  throw Error(located_message(file, line, std::string(call) + " failed on rank " + std::to_string(rank) + " (" + this_host() +
                                              "): " + std::string(text, static_cast<std::size_t>(length))));
}

MpiSession::MpiSession(int* argc, char*** argv, bool serialized) {
  if (serialized) {
    int provided = MPI_THREAD_SINGLE;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS || provided < MPI_THREAD_SERIALIZED) {
      std::fprintf(stderr, "collbench: error: the MPI library does not provide MPI_THREAD_SERIALIZED, which a "
                           "communication thread needs (run with --overlap off)\n");
      std::exit(static_cast<int>(ExitCode::kRuntimeError));
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    return;
  }
  // Plain MPI_Init (thread level single): no other thread of collbench ever calls MPI (the
  // watchdog talks over its own sockets). Requesting MPI_THREAD_FUNNELED instead costs Open MPI
  // 4.1 about 75 ns on every small call (8 B all-reduce, 2 ranks: 0.17 -> 0.25 us, measured;
  // results/cpu-mpi/README.md), which would show in every small-message row.
  if (MPI_Init(argc, argv) != MPI_SUCCESS) {
    std::fprintf(stderr, "collbench: error: MPI_Init failed\n");
    std::exit(static_cast<int>(ExitCode::kRuntimeError));
  }
  // Return codes instead of aborting inside the library, so CB_MPI_CHECK can say what failed.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

MpiWorld::MpiWorld() {
  CB_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &communicator_));
  CB_MPI_CHECK(MPI_Comm_set_errhandler(communicator_, MPI_ERRORS_RETURN));
  CB_MPI_CHECK(MPI_Comm_rank(communicator_, &rank_));
  CB_MPI_CHECK(MPI_Comm_size(communicator_, &size_));
  MPI_Comm local = MPI_COMM_NULL;
  CB_MPI_CHECK(MPI_Comm_split_type(communicator_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local));
  CB_MPI_CHECK(MPI_Comm_rank(local, &local_rank_));
  MPI_Comm_free(&local);
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int length = 0;
  CB_MPI_CHECK(MPI_Get_processor_name(name, &length));
  host_.assign(name, static_cast<std::size_t>(length));
}

MpiWorld::~MpiWorld() {
  if (communicator_ != MPI_COMM_NULL) MPI_Comm_free(&communicator_);
}

void MpiWorld::barrier() { CB_MPI_CHECK(MPI_Barrier(communicator_)); }

void MpiWorld::combine(std::vector<double>& values, Combine how) {
  const MPI_Op op = how == Combine::kMax ? MPI_MAX : how == Combine::kMin ? MPI_MIN : MPI_SUM;
  CB_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, op, communicator_));
}

std::int64_t MpiWorld::sum(std::int64_t value) {
  CB_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT64_T, MPI_SUM, communicator_));
  return value;
}

std::vector<std::string> MpiWorld::gather_strings(const std::string& mine) {
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size_));
  CB_MPI_CHECK(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, communicator_));
  std::vector<int> offsets(static_cast<std::size_t>(size_), 0);
  int total = 0;
  for (int r = 0; r < size_; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += lengths[static_cast<std::size_t>(r)];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  CB_MPI_CHECK(MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                              communicator_));
  std::vector<std::string> out;
  for (int r = 0; r < size_; ++r) {
    out.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                             static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])));
  }
  return out;
}

std::string MpiWorld::broadcast_string(const std::string& from_rank_zero) {
  int length = static_cast<int>(from_rank_zero.size());
  CB_MPI_CHECK(MPI_Bcast(&length, 1, MPI_INT, 0, communicator_));
  std::string out = rank_ == 0 ? from_rank_zero : std::string(static_cast<std::size_t>(length), '\0');
  CB_MPI_CHECK(MPI_Bcast(out.data(), length, MPI_CHAR, 0, communicator_));
  return out;
}

void MpiWorld::abort(int exit_code) {
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);  // MPI_Abort should not return; make sure of it
}

std::string MpiWorld::library_version() const {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string version(text, static_cast<std::size_t>(length));
  const auto end = version.find_first_of(",\n");  // "Open MPI v4.1.4, package: ..." -> first clause
  return end == std::string::npos ? version : version.substr(0, end);
}

}  // namespace collbench::mpi
