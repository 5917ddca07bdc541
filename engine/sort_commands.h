// SORT and SORT_RO (Redis 7.0's sort.c) over lists, sets and zsets of every encode-version.
//
// SORT reads keys that no argument names: the BY pattern's weight keys and the GET patterns'
// keys are made of the sorted key's elements. Contract with the engine's per-key serialization
// (engine/key_locks.h): the command table gives SORT and SORT_RO `reads_unnamed_keys`
// (SortReadsPatternKeys); when it is true for argv, the engine locks everything (in the
// command's mode: shared for SORT_RO, exclusive for SORT), runs the command alone among the
// writers of a pipeline group, and EXEC with such a queued command locks everything too. The
// pattern keys are then read in the command's own transaction (its CountingStore, its batch for
// STORE) while no other writer runs, which is what Redis's single thread gives. A SORT without
// a real BY or GET pattern locks its named keys only (the sorted key and the STORE destination,
// found by SortKeyPositions), as any command.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace kvlab::engine {

class CommandContext;

void SortCommand(CommandContext& ctx);
void SortRoCommand(CommandContext& ctx);

// Whether SORT (`readonly` false) or SORT_RO with argv reads keys made from a pattern: a BY
// pattern with '*' that is used to sort, or a GET pattern with '*' other than "#". False when
// argv does not parse (the command replies the error before it reads any key).
bool SortReadsPatternKeys(const std::vector<std::string>& argv);
bool SortRoReadsPatternKeys(const std::vector<std::string>& argv);

// The key positions of SORT's argv, as Redis's sortGetKeys finds them (the sorted key, and the
// argument after the last STORE that its skipping parse sees, flagged written), plus the STORE
// destination the command's own parse uses when the two differ (an argv such as
// "SORT l STORE by STORE d"), so that the engine locks the key the command writes.
// (position, written) pairs.
void SortFindKeys(const std::vector<std::string>& argv, std::vector<std::pair<size_t, bool>>* keys);
// SORT_RO's: the sorted key alone (sortROGetKeys).
void SortRoFindKeys(const std::vector<std::string>& argv,
                    std::vector<std::pair<size_t, bool>>* keys);

}  // namespace kvlab::engine
