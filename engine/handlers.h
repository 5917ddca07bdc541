// The command handlers, one per command, listed by the file that defines them. The command
// table (command_table.cc) is the only place that refers to them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kvlab::engine {

class CommandContext;

// collector.cc
void KvlabGcCommand(CommandContext& ctx);

// key_scan.cc
void HscanCommand(CommandContext& ctx);
void ZscanCommand(CommandContext& ctx);
void SscanCommand(CommandContext& ctx);

// key_move_commands.cc
void RenameCommand(CommandContext& ctx);
void RenamenxCommand(CommandContext& ctx);
void CopyCommand(CommandContext& ctx);
void MoveCommand(CommandContext& ctx);
// CommandSpec::keys_elsewhere of MOVE and COPY.
void MoveKeysElsewhere(const std::vector<std::string>& argv, int databases,
                       std::vector<std::pair<uint8_t, size_t>>* out);
void CopyKeysElsewhere(const std::vector<std::string>& argv, int databases,
                       std::vector<std::pair<uint8_t, size_t>>* out);

// transaction.cc
void MultiCommand(CommandContext& ctx);
void ExecCommand(CommandContext& ctx);
void DiscardCommand(CommandContext& ctx);
void WatchCommand(CommandContext& ctx);
void UnwatchCommand(CommandContext& ctx);

// keyspace_commands.cc
void DelCommand(CommandContext& ctx);
void UnlinkCommand(CommandContext& ctx);
void ExistsCommand(CommandContext& ctx);
void TouchCommand(CommandContext& ctx);
// key_info_commands.cc
void RandomkeyCommand(CommandContext& ctx);
void ObjectCommand(CommandContext& ctx);
void MemoryCommand(CommandContext& ctx);
void TypeCommand(CommandContext& ctx);
void ExpireCommand(CommandContext& ctx);
void PexpireCommand(CommandContext& ctx);
void ExpireatCommand(CommandContext& ctx);
void PexpireatCommand(CommandContext& ctx);
void TtlCommand(CommandContext& ctx);
void PttlCommand(CommandContext& ctx);
void ExpiretimeCommand(CommandContext& ctx);
void PexpiretimeCommand(CommandContext& ctx);
void PersistCommand(CommandContext& ctx);
void KeysCommand(CommandContext& ctx);
void ScanCommand(CommandContext& ctx);
void DbsizeCommand(CommandContext& ctx);
void FlushdbCommand(CommandContext& ctx);
void FlushallCommand(CommandContext& ctx);

// string_commands.cc
void GetCommand(CommandContext& ctx);
void SetCommand(CommandContext& ctx);
void SetexCommand(CommandContext& ctx);
void PsetexCommand(CommandContext& ctx);
void SetnxCommand(CommandContext& ctx);
void MgetCommand(CommandContext& ctx);
void MsetCommand(CommandContext& ctx);
void StrlenCommand(CommandContext& ctx);
void GetexCommand(CommandContext& ctx);
void GetdelCommand(CommandContext& ctx);
void GetsetCommand(CommandContext& ctx);
void MsetnxCommand(CommandContext& ctx);

// string_edit_commands.cc
void IncrCommand(CommandContext& ctx);
void DecrCommand(CommandContext& ctx);
void IncrbyCommand(CommandContext& ctx);
void DecrbyCommand(CommandContext& ctx);
void IncrbyfloatCommand(CommandContext& ctx);
void AppendCommand(CommandContext& ctx);
void GetrangeCommand(CommandContext& ctx);
void SubstrCommand(CommandContext& ctx);
void SetrangeCommand(CommandContext& ctx);

// string_bit_commands.cc
void SetbitCommand(CommandContext& ctx);
void GetbitCommand(CommandContext& ctx);
void BitcountCommand(CommandContext& ctx);
void BitposCommand(CommandContext& ctx);
void LcsCommand(CommandContext& ctx);

// hash_commands.cc
void HsetCommand(CommandContext& ctx);
void HmsetCommand(CommandContext& ctx);
void HsetnxCommand(CommandContext& ctx);
void HgetCommand(CommandContext& ctx);
void HmgetCommand(CommandContext& ctx);
void HdelCommand(CommandContext& ctx);
void HgetallCommand(CommandContext& ctx);
void HlenCommand(CommandContext& ctx);
void HkeysCommand(CommandContext& ctx);
void HvalsCommand(CommandContext& ctx);
void HexistsCommand(CommandContext& ctx);
void HstrlenCommand(CommandContext& ctx);
void HincrbyCommand(CommandContext& ctx);
void HincrbyfloatCommand(CommandContext& ctx);

// zset_commands.cc
void ZaddCommand(CommandContext& ctx);
void ZincrbyCommand(CommandContext& ctx);
void ZcardCommand(CommandContext& ctx);
void ZscoreCommand(CommandContext& ctx);
void ZmscoreCommand(CommandContext& ctx);
void ZcountCommand(CommandContext& ctx);
void ZlexcountCommand(CommandContext& ctx);
void ZrankCommand(CommandContext& ctx);
void ZrevrankCommand(CommandContext& ctx);
void ZremCommand(CommandContext& ctx);
void ZpopminCommand(CommandContext& ctx);
void ZpopmaxCommand(CommandContext& ctx);

// zset_range_commands.cc
void ZrangeCommand(CommandContext& ctx);
void ZrangebyscoreCommand(CommandContext& ctx);
void ZrevrangebyscoreCommand(CommandContext& ctx);
void ZrangebylexCommand(CommandContext& ctx);
void ZrevrangebylexCommand(CommandContext& ctx);
void ZrevrangeCommand(CommandContext& ctx);
void ZremrangebyrankCommand(CommandContext& ctx);
void ZremrangebyscoreCommand(CommandContext& ctx);
void ZremrangebylexCommand(CommandContext& ctx);
void ZrangestoreCommand(CommandContext& ctx);

// zset_algebra_commands.cc
void ZunionCommand(CommandContext& ctx);
void ZinterCommand(CommandContext& ctx);
void ZdiffCommand(CommandContext& ctx);
void ZunionstoreCommand(CommandContext& ctx);
void ZinterstoreCommand(CommandContext& ctx);
void ZdiffstoreCommand(CommandContext& ctx);
void ZintercardCommand(CommandContext& ctx);

// rand_member_commands.cc
void ZrandmemberCommand(CommandContext& ctx);
void HrandfieldCommand(CommandContext& ctx);
// zset_pop_commands.cc
void ZmpopCommand(CommandContext& ctx);
void BzpopminCommand(CommandContext& ctx);
void BzpopmaxCommand(CommandContext& ctx);
void BzmpopCommand(CommandContext& ctx);
// list_commands.cc
void LpushCommand(CommandContext& ctx);
void RpushCommand(CommandContext& ctx);
void LpushxCommand(CommandContext& ctx);
void RpushxCommand(CommandContext& ctx);
void LpopCommand(CommandContext& ctx);
void RpopCommand(CommandContext& ctx);
void LlenCommand(CommandContext& ctx);
void LrangeCommand(CommandContext& ctx);
void LindexCommand(CommandContext& ctx);
void LsetCommand(CommandContext& ctx);
void LinsertCommand(CommandContext& ctx);
void LremCommand(CommandContext& ctx);
void LtrimCommand(CommandContext& ctx);
void LposCommand(CommandContext& ctx);

// list_move_commands.cc
void LmoveCommand(CommandContext& ctx);
void RpoplpushCommand(CommandContext& ctx);
void LmpopCommand(CommandContext& ctx);
void BlpopCommand(CommandContext& ctx);
void BrpopCommand(CommandContext& ctx);
void BlmoveCommand(CommandContext& ctx);
void BrpoplpushCommand(CommandContext& ctx);
void BlmpopCommand(CommandContext& ctx);
// set_commands.cc
void SaddCommand(CommandContext& ctx);
void SremCommand(CommandContext& ctx);
void ScardCommand(CommandContext& ctx);
void SismemberCommand(CommandContext& ctx);
void SmismemberCommand(CommandContext& ctx);
void SmembersCommand(CommandContext& ctx);
void SrandmemberCommand(CommandContext& ctx);
void SpopCommand(CommandContext& ctx);
void SmoveCommand(CommandContext& ctx);

// set_algebra_commands.cc
void SinterCommand(CommandContext& ctx);
void SunionCommand(CommandContext& ctx);
void SdiffCommand(CommandContext& ctx);
void SinterstoreCommand(CommandContext& ctx);
void SunionstoreCommand(CommandContext& ctx);
void SdiffstoreCommand(CommandContext& ctx);
void SintercardCommand(CommandContext& ctx);

// server_commands.cc
void PingCommand(CommandContext& ctx);
void EchoCommand(CommandContext& ctx);
void SelectCommand(CommandContext& ctx);
void TimeCommand(CommandContext& ctx);
void ConfigCommand(CommandContext& ctx);

// connection_commands.cc
void HelloCommand(CommandContext& ctx);
void AuthCommand(CommandContext& ctx);
void QuitCommand(CommandContext& ctx);
void ClientCommand(CommandContext& ctx);
void ShutdownCommand(CommandContext& ctx);

// command_command.cc
void CommandCommand(CommandContext& ctx);

// info_command.cc
void InfoCommand(CommandContext& ctx);

// geo_commands.cc
void GeoaddCommand(CommandContext& ctx);
void GeoposCommand(CommandContext& ctx);
void GeohashCommand(CommandContext& ctx);
void GeodistCommand(CommandContext& ctx);
void GeoradiusCommand(CommandContext& ctx);
void GeoradiusRoCommand(CommandContext& ctx);
void GeoradiusbymemberCommand(CommandContext& ctx);
void GeoradiusbymemberRoCommand(CommandContext& ctx);
void GeosearchCommand(CommandContext& ctx);
void GeosearchstoreCommand(CommandContext& ctx);
// server_admin_commands.cc
void SwapdbCommand(CommandContext& ctx);
void SaveCommand(CommandContext& ctx);
void BgsaveCommand(CommandContext& ctx);
void BgrewriteaofCommand(CommandContext& ctx);
void LastsaveCommand(CommandContext& ctx);
// string_bitfield_commands.cc
void BitopCommand(CommandContext& ctx);
void BitfieldCommand(CommandContext& ctx);
void BitfieldRoCommand(CommandContext& ctx);
// connection_commands.cc (its row: command_rows_connection.cc)
void ResetCommand(CommandContext& ctx);

}  // namespace kvlab::engine
