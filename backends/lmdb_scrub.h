// A scrub of an LMDB store's data.mdb, page by page, without LMDB: what kvlab checks on open.
//
// LMDB keeps no checksums of its own pages and trusts every byte of its map. A flipped bit in a
// branch page's child pointer, a node's key or size, a page's free-space bounds or a meta page
// makes records vanish (a read replies nil), moves a lookup to another record, or makes LMDB
// fail an assertion or read out of bounds (SIGSEGV). Value checksums (checksum_store.h) cannot
// see any of that: the record they would check is never reached. So, before LMDB maps the file,
// kvlab reads it with pread(2) and checks every invariant of the file format that LMDB relies
// on when it reads, with every offset bounds-checked: the scrub itself cannot crash on a damaged
// file, and a store it passes is one on which LMDB reads only pages whose structure is sound.
//
// What it checks (LMDB 0.9.x on a 64-bit machine, the file format of mdb.c):
// - the two meta pages: their page flags, magic, data version and page size, and their
//   transaction ids. LMDB writes transaction N's meta to page N % 2, so a committed file always
//   holds ids t and t-1 on pages t % 2 and (t-1) % 2 (or 0 and 0 before the first commit). LMDB
//   opens the meta with the larger id; a flip in an id (of either page) breaks the parity or the
//   adjacency, and is refused here, instead of LMDB opening the previous transaction's state (or
//   an older one) silently. The newest meta's database records and last page number are checked
//   by the walk below; its map size and fixed address are unused by kvlab's LMDB (the map size is
//   set at open) and not checked;
// - every page reachable from the newest meta: the main database, the named databases it holds
//   (StoreOptions::key_spaces) and LMDB's free-page database. Each page's number in its header
//   is the number it was reached by, its flags are a branch's or a leaf's (an overflow page's
//   where a big value points), its free-space bounds are in order and its nodes lie between the
//   upper bound and the page end without overlap, filling that span exactly; keys are strictly
//   ascending, inside the key range the parent's separators give the page, and every leaf is at
//   the database's depth; the database record's entry, page and depth counts equal what the walk
//   found; no page is reached twice;
// - the free-page database's lists: every page they name is in the file and in no tree, and
//   every page of the file (2 .. last page) is in a tree or in the lists. LMDB reuses listed pages
//   for new writes, so a damaged list would make it overwrite live data;
// - with checksums (a store whose format record says "checksums crc32"), every record's checksum
//   trailer (ChecksumStore::Decode), named by its key. A flip in a stored key moves a record under
//   another name, so its old name reads as nil: only the scrub, which reads the moved record,
//   sees it; hence record damage is damage on open too;
// - that the records agree with the store's marker about checksums: records that all end in a
//   matching trailer while the marker has no "checksums crc32" entry (an edited marker: every
//   value would be served with 4 checksum bytes appended), or a marker with the entry over
//   records none of which carries one, is damage.
// Not checked: bytes LMDB never reads (free space inside a page, the unused tail of an overflow
// page, pages on the free lists, pages past the last one): a flip there is harmless.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace kvlab::backends {

struct LmdbScrubOptions {
  // Verify every record's ChecksumStore trailer (the store keeps checksums).
  bool checksums = false;
  // Findings kept as text in the report (the rest are counted).
  size_t max_findings = 20;
};

struct LmdbScrubReport {
  uint64_t txnid = 0;      // the newest meta's transaction id
  uint64_t last_page = 0;  // its last page number
  uint64_t page_size = 0;
  uint64_t pages = 0;         // pages read
  uint64_t records = 0;       // records of kvlab's databases
  uint64_t record_bytes = 0;  // their key and value bytes
  // Damage in LMDB's own structures (meta pages, page headers, nodes, key order, counts, page
  // lists), and records whose checksum does not match.
  uint64_t structural = 0;
  uint64_t bad_checksums = 0;
  // The first max_findings of both, in the order found: each names where ("page 1234 (a leaf of
  // the main database)", "the record of key ...") and what.
  std::vector<std::string> findings;

  bool damaged() const { return structural + bad_checksums > 0; }
};

// Scrubs dir/data.mdb as described above and fills *report. Returns OK when the file was read
// (damage or not: see report->damaged()), OK with an empty report when there is no data.mdb
// (a store LMDB has not created yet), IOError when it cannot be read.
// REQUIRES: no other process writes the store (the registry's lock on its marker).
Status ScrubLmdbStore(const std::string& dir, const LmdbScrubOptions& options,
                      LmdbScrubReport* report);

// "lmdb: DIR: LMDB's structures are damaged: <findings>", for a refusal: the first findings and
// the count of the rest.
std::string DescribeLmdbDamage(const std::string& dir, const LmdbScrubReport& report);

}  // namespace kvlab::backends
