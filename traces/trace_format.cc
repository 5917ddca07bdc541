#include "traces/trace_format.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

namespace kvlab::traces {
namespace {

constexpr char kBlockTag = 'B';
constexpr char kEndTag = 'E';
// A block holds at most this many bytes: a length past it is corruption, not a reason to
// allocate gigabytes.
constexpr uint64_t kMaxBlockBytes = 64ull << 20;

uint32_t Crc32(std::string_view bytes) {
  return static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

void PutFixed32(uint32_t v, std::string* out) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t GetFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

// Reads a varint from bytes[*pos, size); false when it runs past the end or past 64 bits.
bool GetVarint(std::string_view bytes, size_t* pos, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= bytes.size()) return false;
    const auto b = static_cast<unsigned char>(bytes[(*pos)++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return false;
}

// Materializes a synthetic argument: `n` letters, varied so that a store cannot compress them
// to nothing, the same for the same (n, salt); or a decimal number of n characters.
std::string Synthetic(ArgKind kind, uint64_t n, uint64_t salt) {
  std::string s(n, '0');
  if (kind == ArgKind::kNumber) {
    if (n > 0) s[0] = '1';
    return s;
  }
  uint64_t x = salt * 0x9e3779b97f4a7c15ull + n + 1;
  for (uint64_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s[i] = static_cast<char>('a' + x % 26);
  }
  return s;
}

}  // namespace

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void EncodeCommandBody(uint64_t client, uint32_t db, const std::vector<std::string>& argv,
                       const std::vector<ArgKind>& kinds, std::string* out) {
  PutVarint(client, out);
  PutVarint(db, out);
  PutVarint(argv.size(), out);
  for (size_t i = 0; i < argv.size(); ++i) {
    const ArgKind kind = i < kinds.size() ? kinds[i] : ArgKind::kLiteral;
    PutVarint((static_cast<uint64_t>(argv[i].size()) << 2) | static_cast<uint64_t>(kind), out);
    if (kind == ArgKind::kLiteral) out->append(argv[i]);
  }
}

// ---- TraceWriter ----

Status TraceWriter::Open(const std::string& path, const TraceHeader& header) {
  path_ = path;
  file_ = std::fopen(path.c_str(), "wb");
  if (file_ == nullptr) {
    return Status::InvalidArgument("cannot write trace '" + path + "': " + std::strerror(errno));
  }
  std::string fields;
  PutVarint(header.version, &fields);
  PutVarint(header.flags, &fields);
  PutVarint(header.start_unix_us, &fields);
  PutVarint(header.context.size(), &fields);
  fields += header.context;
  std::string bytes(kTraceMagic, sizeof(kTraceMagic));
  bytes += fields;
  PutFixed32(Crc32(fields), &bytes);
  return Write(bytes);
}

Status TraceWriter::Write(const std::string& bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    return Status::IOError("writing trace '" + path_ + "': " + std::strerror(errno));
  }
  written_ += bytes.size();
  return Status::OK();
}

Status TraceWriter::Add(uint64_t time_us, uint64_t client, uint32_t db,
                        const std::vector<std::string>& argv, const std::vector<ArgKind>& kinds) {
  std::string body;
  EncodeCommandBody(client, db, argv, kinds, &body);
  return AddEncoded(time_us, body);
}

Status TraceWriter::AddEncoded(uint64_t time_us, std::string_view body) {
  time_us = std::max(time_us, last_time_us_);
  PutVarint(time_us - last_time_us_, &block_);
  last_time_us_ = time_us;
  block_.append(body);
  ++block_commands_;
  ++commands_;
  if (block_.size() >= kBlockBytes) return FlushBlock();
  return Status::OK();
}

Status TraceWriter::AddBlock(std::string_view payload, uint64_t commands) {
  std::string bytes(1, kBlockTag);
  PutVarint(payload.size(), &bytes);
  PutVarint(commands, &bytes);
  bytes += payload;
  PutFixed32(Crc32(payload), &bytes);
  commands_ += commands;
  return Write(bytes);
}

Status TraceWriter::FlushBlock() {
  if (block_commands_ == 0) return Status::OK();
  std::string bytes(1, kBlockTag);
  PutVarint(block_.size(), &bytes);
  PutVarint(block_commands_, &bytes);
  bytes += block_;
  PutFixed32(Crc32(block_), &bytes);
  block_.clear();
  block_commands_ = 0;
  return Write(bytes);
}

Status TraceWriter::Close(uint64_t end_flags, uint64_t unrecorded) {
  if (file_ == nullptr) return Status::OK();
  Status s = FlushBlock();
  if (s.ok()) {
    std::string fields;
    PutVarint(commands_, &fields);
    PutVarint(end_flags, &fields);
    PutVarint(unrecorded, &fields);
    std::string bytes(1, kEndTag);
    bytes += fields;
    PutFixed32(Crc32(fields), &bytes);
    s = Write(bytes);
  }
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (s.ok() && !closed) {
    s = Status::IOError("closing trace '" + path_ + "': " + std::strerror(errno));
  }
  return s;
}

TraceWriter::~TraceWriter() {
  if (file_ != nullptr) std::fclose(file_);  // an unclosed trace stays truncated, as it is
}

// ---- TraceReader ----

Status TraceReader::Fail(const std::string& what, uint64_t at) const {
  return Status::InvalidArgument("trace '" + path_ + "': " + what + " at byte " +
                                 std::to_string(at) + " (" + std::to_string(commands_) +
                                 " commands read before it)");
}

bool TraceReader::ReadBytes(size_t n, std::string* out) {
  out->resize(n);
  in_.read(out->data(), static_cast<std::streamsize>(n));
  if (static_cast<size_t>(in_.gcount()) != n) return false;
  offset_ += n;
  return true;
}

Status TraceReader::Open(const std::string& path) {
  path_ = path;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Status::InvalidArgument("trace '" + path + "': no such file");
  }
  file_size_ = std::filesystem::file_size(path, ec);
  in_.open(path, std::ios::binary);
  if (!in_) return Status::InvalidArgument("cannot read trace '" + path + "'");
  std::string magic;
  if (!ReadBytes(sizeof(kTraceMagic), &magic) ||
      std::memcmp(magic.data(), kTraceMagic, sizeof(kTraceMagic)) != 0) {
    return Status::InvalidArgument("trace '" + path +
                                   "': not a kvlab trace (no KVLTRACE magic at byte 0)");
  }
  // The header's fields are small: read what is there (at most 1 MB of context) and parse.
  std::string rest;
  const uint64_t want = std::min<uint64_t>(file_size_ - offset_, (1u << 20) + 64);
  const uint64_t at = offset_;
  if (!ReadBytes(want, &rest)) return Fail("cannot read the header", at);
  size_t pos = 0;
  uint64_t version = 0, flags = 0, start = 0, context_len = 0;
  if (!GetVarint(rest, &pos, &version)) return Fail("truncated header", at);
  if (version != kTraceVersion) {
    return Status::InvalidArgument("trace '" + path + "': format version " +
                                   std::to_string(version) + ", but this kvlab reads version " +
                                   std::to_string(kTraceVersion));
  }
  if (!GetVarint(rest, &pos, &flags) || !GetVarint(rest, &pos, &start) ||
      !GetVarint(rest, &pos, &context_len) || context_len > rest.size() - pos ||
      rest.size() - pos - context_len < 4) {
    return Fail("truncated header", at);
  }
  header_.version = static_cast<uint32_t>(version);
  header_.flags = flags;
  header_.start_unix_us = start;
  header_.context = rest.substr(pos, context_len);
  pos += context_len;
  if (Crc32(std::string_view(rest).substr(0, pos)) != GetFixed32(rest.data() + pos)) {
    return Fail("corrupt header (checksum mismatch)", at);
  }
  pos += 4;
  // Back to just after the header.
  offset_ = at + pos;
  in_.clear();
  in_.seekg(static_cast<std::streamoff>(offset_));
  return Status::OK();
}

Status TraceReader::ReadBlock(bool* end) {
  *end = false;
  const uint64_t at = offset_;
  std::string tag;
  if (!ReadBytes(1, &tag)) {
    return Fail("truncated: the file ends without its end record (" + std::to_string(file_size_) +
                    " bytes)",
                at);
  }
  // The varint fields after the tag: read up to 30 bytes and parse what is needed.
  auto read_varints = [&](int n, uint64_t* out, std::string* raw) {
    raw->clear();
    for (int i = 0; i < n; ++i) {
      uint64_t v = 0;
      int shift = 0;
      for (;;) {
        std::string b;
        if (!ReadBytes(1, &b) || shift > 63) return false;
        raw->push_back(b[0]);
        const auto c = static_cast<unsigned char>(b[0]);
        v |= static_cast<uint64_t>(c & 0x7f) << shift;
        shift += 7;
        if ((c & 0x80) == 0) break;
      }
      out[i] = v;
    }
    return true;
  };
  if (tag[0] == kEndTag) {
    uint64_t v[3];
    std::string raw, crc;
    if (!read_varints(3, v, &raw) || !ReadBytes(4, &crc)) return Fail("truncated end record", at);
    if (Crc32(raw) != GetFixed32(crc.data())) return Fail("corrupt end record (checksum)", at);
    if (v[0] != commands_) {
      return Fail("corrupt: the end record counts " + std::to_string(v[0]) +
                      " commands, the blocks hold " + std::to_string(commands_),
                  at);
    }
    if (offset_ != file_size_) {
      return Fail(
          "corrupt: " + std::to_string(file_size_ - offset_) + " bytes follow the end record",
          offset_);
    }
    end_ = TraceEnd{v[0], v[1], v[2]};
    *end = true;
    return Status::OK();
  }
  if (tag[0] != kBlockTag) return Fail("corrupt: no block or end record begins", at);
  uint64_t v[2];
  std::string raw, crc;
  if (!read_varints(2, v, &raw)) return Fail("truncated block header", at);
  const uint64_t length = v[0];
  if (length == 0 || v[1] == 0 || length > kMaxBlockBytes) {
    return Fail("corrupt block header (" + std::to_string(length) + " bytes, " +
                    std::to_string(v[1]) + " commands)",
                at);
  }
  if (length + 4 > file_size_ - offset_) {
    return Fail("truncated: a block of " + std::to_string(length) +
                    " bytes runs past the end of the file (" + std::to_string(file_size_) +
                    " bytes)",
                at);
  }
  block_offset_ = offset_;
  if (!ReadBytes(length, &block_) || !ReadBytes(4, &crc)) return Fail("truncated block", at);
  if (Crc32(block_) != GetFixed32(crc.data())) {
    return Fail("corrupt block (checksum mismatch over bytes " + std::to_string(block_offset_) +
                    ".." + std::to_string(block_offset_ + length) + ")",
                at);
  }
  pos_ = 0;
  block_left_ = v[1];
  return Status::OK();
}

Status TraceReader::Next(TraceCommand* out, bool* done) {
  *done = false;
  if (ended_) {
    *done = true;
    return Status::OK();
  }
  while (block_left_ == 0) {
    if (pos_ != block_.size()) {
      return Fail("corrupt block: bytes left after its commands", block_offset_ + pos_);
    }
    bool end = false;
    KVLAB_RETURN_IF_ERROR(ReadBlock(&end));
    if (end) {
      ended_ = true;
      *done = true;
      return Status::OK();
    }
  }
  const uint64_t at = block_offset_ + pos_;
  auto bad = [&](const std::string& what) { return Fail("corrupt command: " + what, at); };
  uint64_t delta = 0, client = 0, db = 0, argc = 0;
  if (!GetVarint(block_, &pos_, &delta) || !GetVarint(block_, &pos_, &client) ||
      !GetVarint(block_, &pos_, &db) || !GetVarint(block_, &pos_, &argc)) {
    return bad("its fields run past its block");
  }
  if (argc == 0 || argc > block_.size()) return bad(std::to_string(argc) + " arguments");
  if (db > 0xffff) return bad("database " + std::to_string(db));
  time_us_ += delta;
  out->time_us = time_us_;
  out->client = client;
  out->db = static_cast<uint32_t>(db);
  out->argv.resize(argc);
  out->kinds.assign(argc, ArgKind::kLiteral);
  for (uint64_t i = 0; i < argc; ++i) {
    uint64_t head = 0;
    if (!GetVarint(block_, &pos_, &head)) return bad("argument " + std::to_string(i));
    const uint64_t len = head >> 2;
    const auto kind = static_cast<ArgKind>(head & 3);
    if (kind == ArgKind::kLiteral) {
      if (len > block_.size() - pos_) {
        return bad("argument " + std::to_string(i) + " of " + std::to_string(len) +
                   " bytes runs past its block");
      }
      out->argv[i].assign(block_, pos_, len);
      pos_ += len;
    } else if (kind == ArgKind::kValue || kind == ArgKind::kNumber) {
      if (len > kMaxBlockBytes * 8) return bad("a synthetic value of " + std::to_string(len));
      out->argv[i] = Synthetic(kind, len, commands_ * 31 + i);
      out->kinds[i] = kind;
    } else {
      return bad("argument kind 3");
    }
  }
  --block_left_;
  ++commands_;
  return Status::OK();
}

Status SummarizeTrace(const std::string& path, TraceSummary* out) {
  *out = TraceSummary();
  TraceReader reader;
  KVLAB_RETURN_IF_ERROR(reader.Open(path));
  out->header = reader.header();
  std::set<uint64_t> clients;
  std::set<uint32_t> dbs;
  std::map<std::string, uint64_t> mix;
  TraceCommand c;
  uint64_t first = 0;
  for (;;) {
    bool done = false;
    KVLAB_RETURN_IF_ERROR(reader.Next(&c, &done));
    if (done) break;
    if (out->commands == 0) first = c.time_us;
    out->duration_us = c.time_us - first;
    ++out->commands;
    clients.insert(c.client);
    dbs.insert(c.db);
    for (const std::string& a : c.argv) out->arg_bytes += a.size();
    std::string name = c.argv[0];
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    ++mix[name];
  }
  out->end = reader.end();
  out->clients = clients.size();
  out->dbs.assign(dbs.begin(), dbs.end());
  out->bytes = reader.offset();
  out->mix.assign(mix.begin(), mix.end());
  std::stable_sort(out->mix.begin(), out->mix.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return Status::OK();
}

}  // namespace kvlab::traces
