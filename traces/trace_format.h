// kvlab's trace format (docs/traces.md): a compact, versioned binary file of Redis commands,
// each with its time, client and database, written by `kvlab serve --record` and `kvlab trace
// import`, and replayed by `kvlab bench run trace:FILE`.
//
// A file is a header (magic, version, flags, start time, a context text), blocks of commands
// (each with its byte length, its command count and a CRC-32 of its bytes) and an end record
// (the command count and how recording ended). A truncated file lacks its end record; a
// corrupt one fails a block's length or checksum: the reader reports either with the byte
// offset where the file stops making sense, and never reads past what a length allows.
//
// An argument is either literal bytes or, in an anonymized trace, a synthetic value of a
// recorded length (its bytes were never stored): the reader materializes it as that many
// pseudo-random letters, or as a decimal number of that many digits when the value was one.
#pragma once

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace kvlab::traces {

inline constexpr char kTraceMagic[8] = {'K', 'V', 'L', 'T', 'R', 'A', 'C', 'E'};
inline constexpr uint32_t kTraceVersion = 1;

// Header flags.
inline constexpr uint64_t kTraceAnonymized = 1u << 0;
// End-record flags: why recording ended.
inline constexpr uint64_t kTraceStoppedAtSizeBound = 1u << 0;

// The kind of one argument.
enum class ArgKind : uint8_t {
  kLiteral = 0,  // the bytes themselves
  kValue = 1,    // a value of this length, replaced (anonymized): materialized as letters
  kNumber = 2,   // a number of this many characters, replaced: materialized as digits
};

struct TraceHeader {
  uint32_t version = kTraceVersion;
  uint64_t flags = 0;
  uint64_t start_unix_us = 0;  // the wall-clock time of the first command's time base
  std::string context;         // "key: value" lines: what recorded it, from what, with what
};

struct TraceCommand {
  uint64_t time_us = 0;  // since the header's start time
  uint64_t client = 0;   // the client's number in the trace (its connection)
  uint32_t db = 0;       // the database the command ran in
  std::vector<std::string> argv;
  // Per argument (empty: all literal). Synthetic arguments' bytes in argv are materialized.
  std::vector<ArgKind> kinds;
};

struct TraceEnd {
  uint64_t commands = 0;
  uint64_t flags = 0;
  // Commands the recorder saw but left out after it stopped (the size bound).
  uint64_t unrecorded = 0;
};

// Appends an unsigned LEB128 varint.
void PutVarint(uint64_t v, std::string* out);
// Encodes one command (without its time delta) into *out: client, db, argc, arguments.
// kinds: per argument, or empty for all literal.
void EncodeCommandBody(uint64_t client, uint32_t db, const std::vector<std::string>& argv,
                       const std::vector<ArgKind>& kinds, std::string* out);

// Writes a trace: blocks of about kBlockBytes, each flushed when full. Not thread-safe (the
// recorder, recorder.h, serializes and buffers for the server's threads).
class TraceWriter {
 public:
  static constexpr size_t kBlockBytes = 64 * 1024;

  // Creates (truncates) `path` and writes the header.
  Status Open(const std::string& path, const TraceHeader& header);
  // Appends a command. REQUIRES: Open succeeded; time_us does not go backwards (a smaller one
  // is recorded as the previous one's time).
  Status Add(uint64_t time_us, uint64_t client, uint32_t db, const std::vector<std::string>& argv,
             const std::vector<ArgKind>& kinds = {});
  // Appends a command whose body came from EncodeCommandBody.
  Status AddEncoded(uint64_t time_us, std::string_view body);
  // Writes a whole block: `payload` holds `commands` commands, each a time delta varint (from
  // the previous command of the trace) and a body. REQUIRES: no command added by Add or
  // AddEncoded is pending (the recorder uses this alone).
  Status AddBlock(std::string_view payload, uint64_t commands);
  // A block's bytes beyond its payload, at most.
  static constexpr uint64_t kBlockOverhead = 1 + 10 + 10 + 4;
  // The bytes written so far plus the open block.
  uint64_t bytes() const { return written_ + block_.size(); }
  uint64_t commands() const { return commands_; }
  // Writes the last block and the end record, and closes the file.
  Status Close(uint64_t end_flags = 0, uint64_t unrecorded = 0);
  ~TraceWriter();

 private:
  Status FlushBlock();
  Status Write(const std::string& bytes);

  std::FILE* file_ = nullptr;
  std::string path_;
  std::string block_;
  uint64_t block_commands_ = 0;
  uint64_t last_time_us_ = 0;
  uint64_t commands_ = 0;
  uint64_t written_ = 0;
};

// Reads a trace, block by block. Every error is InvalidArgument naming the file and the byte
// offset: "trace.kvt: truncated at byte 1234: ...", "...: corrupt block at byte 77: ...".
class TraceReader {
 public:
  Status Open(const std::string& path);
  const TraceHeader& header() const { return header_; }
  // The next command into *out; *done when the end record was read (then end() is set).
  Status Next(TraceCommand* out, bool* done);
  const TraceEnd& end() const { return end_; }
  // Byte offset of the next unread byte of the file.
  uint64_t offset() const { return offset_; }

 private:
  Status ReadBlock(bool* end);
  Status Fail(const std::string& what, uint64_t at) const;
  bool ReadBytes(size_t n, std::string* out);

  std::ifstream in_;
  std::string path_;
  uint64_t file_size_ = 0;
  TraceHeader header_;
  TraceEnd end_;
  bool ended_ = false;
  uint64_t offset_ = 0;
  std::string block_;
  uint64_t block_offset_ = 0;  // where the block's payload starts in the file
  size_t pos_ = 0;             // in block_
  uint64_t block_left_ = 0;    // commands left in the block
  uint64_t time_us_ = 0;
  uint64_t commands_ = 0;
};

// Reads a whole trace and checks it, returning the first problem: what `trace info` and a
// replay do before anything runs.
struct TraceSummary {
  TraceHeader header;
  TraceEnd end;
  uint64_t commands = 0;
  uint64_t clients = 0;
  uint64_t bytes = 0;         // the file's size
  uint64_t arg_bytes = 0;     // the arguments' bytes (synthetic ones at their length)
  uint64_t duration_us = 0;   // first to last command
  std::vector<uint32_t> dbs;  // the databases used, ascending
  // Commands by lower-case name, most first.
  std::vector<std::pair<std::string, uint64_t>> mix;
};
Status SummarizeTrace(const std::string& path, TraceSummary* out);

}  // namespace kvlab::traces
