// The scrub of an LMDB data.mdb; see lmdb_scrub.h for what it checks and why.
//
// The file format, as mdb.c (LMDB 0.9.x) lays it out on a 64-bit little-endian machine (the
// machine's byte order: a data.mdb is not portable):
// - a page: a 16-byte header (pgno_t mp_pgno; uint16 mp_pad; uint16 mp_flags; uint16 mp_lower,
//   uint16 mp_upper, or for an overflow page uint32 mp_pages), then mp_ptrs: one uint16 offset
//   per node (NUMKEYS = (mp_lower - 16) / 2), and the nodes themselves, packed from the page's
//   end down to mp_upper;
// - a node: uint16 mn_lo, mn_hi, mn_flags, mn_ksize, then the key, then (in a leaf) the value or,
//   with F_BIGDATA, the 8-byte number of its first overflow page. A leaf's value size is
//   mn_lo | mn_hi << 16; a branch node's child page is mn_lo | mn_hi << 16 | mn_flags << 32. A
//   node takes NODESIZE + key + data bytes, rounded up to even;
// - a meta page (pages 0 and 1): after the header, MDB_meta: uint32 magic, uint32 version,
//   void* address, size_t mapsize, two MDB_db records (the free-page database, then the main
//   one), pgno_t last page, txnid_t txnid. An MDB_db: uint32 md_pad (the free database's is the
//   page size), uint16 flags, uint16 depth, then branch, leaf and overflow page counts, entries
//   and the root page, 8 bytes each;
// - the free-page database: keys are transaction ids (8 bytes, MDB_INTEGERKEY), values lists of
//   page numbers, the first element their count.
// These offsets are the layout of LMDB's data version 1; the build is pinned to 0.9.x below.
#include "backends/lmdb_scrub.h"

#include <fcntl.h>
#include <lmdb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>

#include "backends/checksum_store.h"

static_assert(MDB_VERSION_MAJOR == 0 && MDB_VERSION_MINOR == 9,
              "lmdb_scrub.cc reads LMDB 0.9's file format (data version 1)");
static_assert(sizeof(size_t) == 8, "lmdb_scrub.cc reads the 64-bit layout of data.mdb");

namespace kvlab::backends {
namespace {

constexpr size_t kPageHeader = 16;
constexpr size_t kNodeHeader = 8;
constexpr uint16_t kBranch = 0x01, kLeaf = 0x02, kOverflow = 0x04, kMeta = 0x08;
constexpr uint16_t kBigData = 0x01, kSubData = 0x02;
constexpr uint32_t kMagic = 0xBEEFC0DE;
constexpr uint32_t kDataVersion = 1;
constexpr uint64_t kNoPage = ~uint64_t{0};  // P_INVALID: the root of an empty database
// MDB_meta's fields, from the start of the meta page.
constexpr size_t kMetaMagic = kPageHeader, kMetaVersion = kPageHeader + 4,
                 kMetaFreeDb = kPageHeader + 24, kMetaMainDb = kPageHeader + 72,
                 kMetaLastPage = kPageHeader + 120, kMetaTxnid = kPageHeader + 128;
constexpr size_t kDbRecordBytes = 48;
// Deeper than any B-tree of a 64 GiB map: a deeper walk means a cycle of damaged pointers.
constexpr int kMaxDepth = 32;

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

uint16_t U16(std::string_view b, size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(b[at]) | static_cast<uint8_t>(b[at + 1]) << 8);
}
uint32_t U32(std::string_view b, size_t at) { return U16(b, at) | uint32_t{U16(b, at + 2)} << 16; }
uint64_t U64(std::string_view b, size_t at) { return U32(b, at) | uint64_t{U32(b, at + 4)} << 32; }

struct DbRecord {
  uint16_t flags = 0, depth = 0;
  uint64_t branch = 0, leaf = 0, overflow = 0, entries = 0, root = kNoPage;
};

DbRecord ParseDb(std::string_view b, size_t at) {
  DbRecord d;
  d.flags = U16(b, at + 4);
  d.depth = U16(b, at + 6);
  d.branch = U64(b, at + 8);
  d.leaf = U64(b, at + 16);
  d.overflow = U64(b, at + 24);
  d.entries = U64(b, at + 32);
  d.root = U64(b, at + 40);
  return d;
}

enum class Tree { kMain, kNamed, kFree };

class Scrubber {
 public:
  Scrubber(int fd, const LmdbScrubOptions& options, LmdbScrubReport* report)
      : fd_(fd), options_(options), report_(report) {}

  Status Run(uint64_t file_bytes);

 private:
  // Counts of one tree, as the walk finds them.
  struct Counts {
    uint64_t branch = 0, leaf = 0, overflow = 0, entries = 0;
  };

  void Damage(std::string what) {
    ++report_->structural;
    Note(std::move(what));
  }
  void Note(std::string what) {
    if (report_->findings.size() < options_.max_findings)
      report_->findings.push_back(std::move(what));
  }
  // Reads `n` bytes at `offset`; false (and damage or an I/O error recorded) when it cannot.
  bool ReadAt(uint64_t offset, size_t n, std::string* out);
  bool ReadPage(uint64_t pgno, std::string* out) {
    ++report_->pages;
    return ReadAt(pgno * psize_, psize_, out);
  }
  // Marks a page as used by `what`; false (and damage) when it is outside the file's pages or
  // already used.
  bool Claim(uint64_t pgno, const std::string& what);
  void WalkTree(const DbRecord& db, Tree tree, const std::string& name);
  // Walks the subtree at pgno whose keys lie in [lo, hi) (nullopt: unbounded).
  void WalkPage(uint64_t pgno, int level, const std::optional<std::string>& lo,
                const std::optional<std::string>& hi, const DbRecord& db, Tree tree,
                const std::string& name, Counts* counts, int* leaf_level);
  // A leaf node's value on overflow pages (F_BIGDATA); false (and damage) when it cannot be
  // read.
  bool LeafValue(const std::string& page, uint64_t pgno, size_t data_at, uint16_t flags,
                 uint64_t dsize, const std::function<std::string()>& where, Counts* counts,
                 std::string* value);
  // Orders keys as the tree does: memcmp (kvlab's databases), or as 8-byte integers (the free
  // database, MDB_INTEGERKEY).
  static int Compare(Tree tree, std::string_view a, std::string_view b);

  const int fd_;
  const LmdbScrubOptions& options_;
  LmdbScrubReport* const report_;
  uint64_t psize_ = 0;
  uint64_t last_page_ = 0;
  Status io_;
  std::vector<uint8_t> used_;  // per page: claimed by a tree or a free list
  std::vector<std::pair<std::string, DbRecord>> named_;  // the named databases found
  std::vector<uint64_t> free_listed_;                    // pages the free lists name
  uint64_t crc_ok_ = 0;  // records whose value ends in a matching checksum trailer
};

bool Scrubber::ReadAt(uint64_t offset, size_t n, std::string* out) {
  out->resize(n);
  size_t done = 0;
  while (done < n) {
    const ssize_t got =
        ::pread(fd_, out->data() + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      io_ = Status::IOError("lmdb: cannot read data.mdb at byte " + std::to_string(offset) + ": " +
                            std::strerror(errno));
      return false;
    }
    if (got == 0) {
      Damage("data.mdb ends at byte " + std::to_string(offset + done) + ", before the " +
             std::to_string(n) + " bytes at " + std::to_string(offset) + " a page refers to");
      return false;
    }
    done += static_cast<size_t>(got);
  }
  return true;
}

bool Scrubber::Claim(uint64_t pgno, const std::string& what) {
  if (pgno < 2 || pgno > last_page_) {
    Damage(what + " refers to page " + std::to_string(pgno) + ", outside the file's pages 2.." +
           std::to_string(last_page_) + " (a damaged page pointer)");
    return false;
  }
  if (used_[pgno]) {
    Damage(what + " refers to page " + std::to_string(pgno) +
           ", which is already used elsewhere (a damaged page pointer or free list)");
    return false;
  }
  used_[pgno] = 1;
  return true;
}

int Scrubber::Compare(Tree tree, std::string_view a, std::string_view b) {
  if (tree == Tree::kFree && a.size() == 8 && b.size() == 8) {
    uint64_t x = 0, y = 0;
    std::memcpy(&x, a.data(), 8);
    std::memcpy(&y, b.data(), 8);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

bool Scrubber::LeafValue(const std::string& page, uint64_t pgno, size_t data_at, uint16_t flags,
                         uint64_t dsize, const std::function<std::string()>& where, Counts* counts,
                         std::string* value) {
  const uint64_t first = U64(page, data_at);
  const uint64_t need = (kPageHeader - 1 + dsize) / psize_ + 1;
  if (!Claim(first, where() + "'s big value")) return false;
  std::string head;
  if (!ReadPage(first, &head)) return false;
  const uint32_t pages = U32(head, 12);
  if (U64(head, 0) != first || U16(head, 10) != kOverflow || pages < need ||
      first + pages - 1 > last_page_) {
    Damage("page " + std::to_string(first) + " (the overflow pages of " + where() + " on page " +
           std::to_string(pgno) + "): its header does not describe " + std::to_string(need) +
           " overflow pages numbered from " + std::to_string(first));
    return false;
  }
  for (uint64_t p = first + 1; p < first + pages; ++p) {
    if (!Claim(p, where() + "'s big value")) return false;
  }
  counts->overflow += pages;
  return ReadAt(first * psize_ + kPageHeader, dsize, value);
}

void Scrubber::WalkPage(uint64_t pgno, int level, const std::optional<std::string>& lo,
                        const std::optional<std::string>& hi, const DbRecord& db, Tree tree,
                        const std::string& name, Counts* counts, int* leaf_level) {
  const std::string where = "page " + std::to_string(pgno) + " (" + name + ")";
  if (level > kMaxDepth) {
    Damage(where + ": the tree is deeper than " + std::to_string(kMaxDepth) + " levels");
    return;
  }
  if (!Claim(pgno, name)) return;
  std::string page;
  if (!ReadPage(pgno, &page)) return;
  const uint16_t flags = U16(page, 10), lower = U16(page, 12), upper = U16(page, 14);
  if (U64(page, 0) != pgno) {
    Damage(where + ": its header says it is page " + std::to_string(U64(page, 0)) +
           " (a damaged page pointer or page header)");
    return;
  }
  if (flags != kBranch && flags != kLeaf) {
    Damage(where + ": its flags " + Hex(flags) + " are not a branch's or a leaf's");
    return;
  }
  const bool branch = flags == kBranch;
  if (lower < kPageHeader || (lower - kPageHeader) % 2 != 0 || lower > upper || upper > psize_ ||
      lower == kPageHeader) {
    Damage(where + ": its free-space bounds " + std::to_string(lower) + ".." +
           std::to_string(upper) + " are impossible");
    return;
  }
  const size_t n = (lower - kPageHeader) / 2;
  // Node geometry: each node between upper and the page's end, no overlap, filling it exactly.
  std::vector<std::pair<size_t, size_t>> spans;  // [offset, end) of each node
  for (size_t i = 0; i < n; ++i) {
    const size_t off = U16(page, kPageHeader + 2 * i);
    if (off < upper || off % 2 != 0 || off + kNodeHeader > psize_) {
      Damage(where + ": node " + std::to_string(i) + " is at byte " + std::to_string(off) +
             ", outside the page's node area " + std::to_string(upper) + ".." +
             std::to_string(psize_));
      return;
    }
    const uint16_t nflags = U16(page, off + 4);
    size_t size = kNodeHeader + U16(page, off + 6);
    if (!branch) {
      size += (nflags & kBigData) ? 8 : (U16(page, off) | size_t{U16(page, off + 2)} << 16);
    }
    if (off + size > psize_) {
      Damage(where + ": node " + std::to_string(i) + " (" + std::to_string(size) +
             " bytes at byte " + std::to_string(off) + ") runs past the page's end");
      return;
    }
    spans.emplace_back(off, off + size + size % 2);
  }
  std::sort(spans.begin(), spans.end());
  size_t filled = 0;
  for (size_t i = 0; i < spans.size(); ++i) {
    if (i + 1 < spans.size() && spans[i].second > spans[i + 1].first) {
      Damage(where + ": nodes at bytes " + std::to_string(spans[i].first) + " and " +
             std::to_string(spans[i + 1].first) + " overlap (a damaged node offset or size)");
      return;
    }
    filled += spans[i].second - spans[i].first;
  }
  if (filled != psize_ - upper) {
    Damage(where + ": its nodes fill " + std::to_string(filled) +
           " bytes, and its free-space "
           "bound says " +
           std::to_string(psize_ - upper) + " (a damaged bound, offset or size)");
    return;
  }

  if (branch) {
    ++counts->branch;
    std::vector<std::string> keys(n);
    for (size_t i = 1; i < n; ++i) {
      const size_t off = U16(page, kPageHeader + 2 * i);
      keys[i] = page.substr(off + kNodeHeader, U16(page, off + 6));
      const bool after_prev = i == 1 ? (!lo || Compare(tree, *lo, keys[i]) < 0)
                                     : Compare(tree, keys[i - 1], keys[i]) < 0;
      if (!after_prev || (hi && Compare(tree, keys[i], *hi) >= 0)) {
        Damage(where + ": separator key " + std::to_string(i) + " \"" + PrintableKey(keys[i]) +
               "\" is out of order (a damaged key: lookups would take the wrong branch)");
        return;
      }
    }
    for (size_t i = 0; i < n; ++i) {
      const size_t off = U16(page, kPageHeader + 2 * i);
      const uint64_t child =
          U16(page, off) | uint64_t{U16(page, off + 2)} << 16 | uint64_t{U16(page, off + 4)} << 32;
      std::optional<std::string> clo = i == 0 ? lo : std::optional<std::string>(keys[i]);
      std::optional<std::string> chi = i + 1 == n ? hi : std::optional<std::string>(keys[i + 1]);
      WalkPage(child, level + 1, clo, chi, db, tree, name, counts, leaf_level);
      if (!io_.ok()) return;
    }
    return;
  }

  ++counts->leaf;
  if (*leaf_level < 0) *leaf_level = level;
  if (level != *leaf_level) {
    Damage(where + ": a leaf at depth " + std::to_string(level) + ", another at depth " +
           std::to_string(*leaf_level) + " (a damaged page pointer)");
  }
  std::string_view prev;  // keys and in-page values are views of `page`
  for (size_t i = 0; i < n; ++i) {
    const size_t off = U16(page, kPageHeader + 2 * i);
    const uint16_t nflags = U16(page, off + 4);
    const std::string_view key =
        std::string_view(page).substr(off + kNodeHeader, U16(page, off + 6));
    const uint64_t dsize = U16(page, off) | uint64_t{U16(page, off + 2)} << 16;
    // Built only for a message: a scrub reads millions of records.
    auto rec = [&] {
      return where + " record " + std::to_string(i) + " \"" + PrintableKey(key) + "\"";
    };
    ++counts->entries;
    if ((i > 0 && Compare(tree, prev, key) >= 0) || (i == 0 && lo && Compare(tree, *lo, key) > 0) ||
        (hi && Compare(tree, key, *hi) >= 0)) {
      Damage(rec() + ": its key is out of order (a damaged key: lookups would miss it)");
      return;
    }
    prev = key;
    const uint16_t allowed = tree == Tree::kMain ? (kBigData | kSubData) : kBigData;
    if ((nflags & ~allowed) != 0 || ((nflags & kSubData) && (nflags & kBigData))) {
      Damage(rec() + ": node flags " + Hex(nflags) + " are not a record's");
      return;
    }
    std::string big;  // a value on overflow pages
    std::string_view value;
    if (!(nflags & kBigData)) {
      value = std::string_view(page).substr(off + kNodeHeader + key.size(), dsize);
    } else if (LeafValue(page, pgno, off + kNodeHeader + key.size(), nflags, dsize, rec, counts,
                         &big)) {
      value = big;
    } else {
      return;
    }
    if (nflags & kSubData) {
      if (value.size() != kDbRecordBytes) {
        Damage(rec() + ": a named database's record of " + std::to_string(value.size()) + " bytes");
        return;
      }
      named_.emplace_back(std::string(key), ParseDb(value, 0));
      continue;
    }
    if (tree == Tree::kFree) {
      const uint64_t count = value.size() >= 8 ? U64(value, 0) : kNoPage;
      if (key.size() != 8 || value.size() % 8 != 0 || count > value.size() / 8 - 1) {
        Damage(rec() + ": not a free-page list (" + std::to_string(value.size()) + " bytes)");
        return;
      }
      for (uint64_t j = 1; j <= count; ++j) free_listed_.push_back(U64(value, 8 * j));
      continue;
    }
    ++report_->records;
    report_->record_bytes += key.size() + value.size();
    std::string_view v;
    const Status crc = ChecksumStore::Decode("lmdb", key, value, &v);
    if (crc.ok()) {
      ++crc_ok_;
    } else if (options_.checksums) {
      ++report_->bad_checksums;
      Note(crc.message());
    }
  }
}

void Scrubber::WalkTree(const DbRecord& db, Tree tree, const std::string& name) {
  if (db.root == kNoPage) {
    if (db.depth != 0 || db.entries != 0 || db.branch + db.leaf + db.overflow != 0) {
      Damage(name + ": its record says it is empty and holds " + std::to_string(db.entries) +
             " records (a damaged database record)");
    }
    return;
  }
  const uint16_t want_flags = tree == Tree::kFree ? MDB_INTEGERKEY : 0;
  if (db.flags != want_flags) {
    Damage(name + ": its flags " + Hex(db.flags) + " are not kvlab's (" + Hex(want_flags) +
           "): LMDB would order its keys another way");
    return;
  }
  Counts counts;
  int leaf_level = -1;
  const uint64_t damage_before = report_->structural;
  WalkPage(db.root, 1, std::nullopt, std::nullopt, db, tree, name, &counts, &leaf_level);
  if (!io_.ok() || report_->structural > damage_before) return;
  if (counts.entries != db.entries || counts.branch != db.branch || counts.leaf != db.leaf ||
      counts.overflow != db.overflow || leaf_level != db.depth) {
    Damage(name + ": its record counts " + std::to_string(db.entries) + " records on " +
           std::to_string(db.branch) + "+" + std::to_string(db.leaf) + "+" +
           std::to_string(db.overflow) + " branch+leaf+overflow pages, depth " +
           std::to_string(db.depth) + "; its tree holds " + std::to_string(counts.entries) +
           " on " + std::to_string(counts.branch) + "+" + std::to_string(counts.leaf) + "+" +
           std::to_string(counts.overflow) + ", depth " + std::to_string(leaf_level) +
           " (records lost to a damaged pointer, or a damaged database record)");
  }
}

Status Scrubber::Run(uint64_t file_bytes) {
  // The meta pages. The page size is the free database's md_pad in meta 0.
  std::string meta[2];
  if (!ReadAt(0, kMetaTxnid + 8, &meta[0])) return io_;
  psize_ = U32(meta[0], kMetaFreeDb);
  if (psize_ < 512 || psize_ > 65536 || (psize_ & (psize_ - 1)) != 0) {
    Damage("meta page 0: page size " + std::to_string(psize_) + " is impossible");
    return io_;
  }
  report_->page_size = psize_;
  if (!ReadAt(psize_, kMetaTxnid + 8, &meta[1])) return io_;
  for (int i = 0; i < 2; ++i) {
    if (U16(meta[i], 10) != kMeta || U32(meta[i], kMetaMagic) != kMagic ||
        U32(meta[i], kMetaVersion) != kDataVersion || U32(meta[i], kMetaFreeDb) != psize_) {
      Damage("meta page " + std::to_string(i) +
             ": not a LMDB meta page of data version 1 with the file's page size");
    }
  }
  if (report_->structural > 0) return io_;
  const uint64_t t0 = U64(meta[0], kMetaTxnid), t1 = U64(meta[1], kMetaTxnid);
  const bool fresh = t0 == 0 && t1 == 0;
  if (!fresh && !((t0 % 2 == 0 && t1 == t0 + 1) || (t1 % 2 == 1 && t0 == t1 + 1))) {
    Damage("meta pages: their transaction ids " + std::to_string(t0) + " (page 0) and " +
           std::to_string(t1) +
           " (page 1) are not two consecutive commits, each on the page of "
           "its parity (a damaged id: LMDB would open the state of transaction " +
           std::to_string(std::max(t0, t1)) + ", which may not be the last one committed)");
    return io_;
  }
  const std::string& cur = meta[t1 > t0 ? 1 : 0];
  report_->txnid = std::max(t0, t1);
  last_page_ = U64(cur, kMetaLastPage);
  report_->last_page = last_page_;
  if (last_page_ < 1 || last_page_ >= file_bytes / psize_) {
    Damage("meta page " + std::to_string(t1 > t0 ? 1 : 0) + ": its last page " +
           std::to_string(last_page_) + " is not a page of the " + std::to_string(file_bytes) +
           "-byte file");
    return io_;
  }
  used_.assign(last_page_ + 1, 0);
  used_[0] = used_[1] = 1;

  WalkTree(ParseDb(cur, kMetaFreeDb), Tree::kFree, "the free-page database");
  if (!io_.ok()) return io_;
  WalkTree(ParseDb(cur, kMetaMainDb), Tree::kMain, "the main database");
  if (!io_.ok()) return io_;
  for (const auto& [name, db] : named_) {
    WalkTree(db, Tree::kNamed, "the named database \"" + PrintableKey(name) + "\"");
    if (!io_.ok()) return io_;
  }
  if (report_->structural > 0) return io_;  // the page census below would repeat the damage
  for (uint64_t p : free_listed_) {
    if (!Claim(p, "the free-page lists")) return io_;
  }
  uint64_t orphans = 0, first_orphan = 0;
  for (uint64_t p = 2; p <= last_page_; ++p) {
    if (!used_[p] && orphans++ == 0) first_orphan = p;
  }
  if (orphans > 0) {
    Damage(std::to_string(orphans) + " pages (the first: page " + std::to_string(first_orphan) +
           ") are in no tree and on no free list (a damaged page pointer or free list: records "
           "may be out of reach)");
  }
  // Whether a store keeps checksums is in its KVLAB_STORE marker; the records witness it too.
  // A value without a trailer ends in 4 bytes that match its CRC-32 with odds of 2^-32, so
  // records that all carry one were written with checksums: a marker without the entry (edited
  // by hand) would have every value served with its 4 checksum bytes appended.
  if (!options_.checksums && report_->records > 0 && crc_ok_ == report_->records) {
    Damage("every one of its " + std::to_string(crc_ok_) +
           " records ends in kvlab's checksum (the CRC-32 of its key and value), but the "
           "store's KVLAB_STORE marker has no \"format checksums crc32\" line: was the marker "
           "edited? Opened so, every value would be served with its 4 checksum bytes appended; "
           "put the line back");
  }
  // The other way round: a marker that gained the entry over a store written without checksums.
  if (options_.checksums && report_->records > 1 && crc_ok_ == 0) {
    ++report_->structural;
    report_->findings.insert(
        report_->findings.begin(),
        "none of its " + std::to_string(report_->records) +
            " records ends in a matching checksum: if the store was written without checksums, "
            "the \"format checksums crc32\" line of its KVLAB_STORE marker was added by hand "
            "(remove it)");
  }
  return io_;
}

}  // namespace

Status ScrubLmdbStore(const std::string& dir, const LmdbScrubOptions& options,
                      LmdbScrubReport* report) {
  *report = LmdbScrubReport();
  const std::string path = dir + "/data.mdb";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status::OK();
    return Status::IOError("lmdb: cannot open " + path + ": " + std::strerror(errno));
  }
  struct stat st {};
  Status s;
  if (::fstat(fd, &st) != 0) {
    s = Status::IOError("lmdb: cannot stat " + path + ": " + std::strerror(errno));
  } else if (st.st_size > 0) {
    s = Scrubber(fd, options, report).Run(static_cast<uint64_t>(st.st_size));
  }
  ::close(fd);
  return s;
}

std::string DescribeLmdbDamage(const std::string& dir, const LmdbScrubReport& report) {
  std::string out = "lmdb: " + dir + ": the store is damaged (" +
                    std::to_string(report.structural) + " in LMDB's own structures, " +
                    std::to_string(report.bad_checksums) + " records whose checksum differs)";
  for (size_t i = 0; i < report.findings.size() && i < 3; ++i) {
    out += (i == 0 ? ": " : "; ") + report.findings[i];
  }
  const uint64_t total = report.structural + report.bad_checksums;
  if (total > 3) out += "; and " + std::to_string(total - 3) + " more";
  return out;
}

}  // namespace kvlab::backends
