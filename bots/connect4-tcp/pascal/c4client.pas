{ Connect Four TCP client library for Free Pascal (docs/protocols/connect4-tcp.md).

  A player is a class derived from TPlayer: a Name and three methods, the seed's API:
    Wake(Width, Height, IStart)    a game starts; IStart is true when you move first
    Move(Board, LastMove)          your turn: return a column 0..Width-1
    GameOver(Result)               the game ended: 'win', 'loss' or 'draw'
  Board[X][Y] is the cell at column X (0 = left), row Y (0 = bottom): C4Empty, C4Mine
  or C4Opponent. LastMove is the opponent's last column, or -1 when you move first; it
  is already on the board. One connection plays any number of games.

  C4Run connects to the address given as the first command-line argument, or else in
  the environment variable ARBITER_ADDR (host:port, the host a numeric IPv4 address),
  or else 127.0.0.1:4000. }
unit c4client;

{$mode objfpc}{$H+}

interface

const
  C4Empty = 0;
  C4Mine = 1;
  C4Opponent = 2;

type
  TBoard = array of array of Integer;

  TPlayer = class
    function Name: string; virtual; abstract;
    procedure Wake(Width, Height: Integer; IStart: Boolean); virtual; abstract;
    function Move(const Board: TBoard; LastMove: Integer): Integer; virtual; abstract;
    procedure GameOver(const Result: string); virtual; abstract;
  end;

{ Board[X][Y] from the rows of a `move` line (top row first, joined by '/'). }
function C4ParseBoard(const Text: string): TBoard;
{ Plays games until the server says bye; returns 0 then, 1 on a connection error. }
function C4Run(Player: TPlayer): Integer;

implementation

uses SysUtils, Sockets;

function C4ParseBoard(const Text: string): TBoard;
var
  Rows: TStringArray;
  Width, Height, X, Y: Integer;
  C: Char;
begin
  Rows := Text.Split('/');
  Height := Length(Rows);
  Width := Length(Rows[0]);
  SetLength(Result, Width, Height);
  for X := 0 to Width - 1 do
    for Y := 0 to Height - 1 do
    begin
      C := Rows[Height - 1 - Y][X + 1];
      if C = 'M' then Result[X][Y] := C4Mine
      else if C = 'T' then Result[X][Y] := C4Opponent
      else Result[X][Y] := C4Empty;
    end;
end;

function C4Run(Player: TPlayer): Integer;
var
  Address, Host, Line: string;
  Colon, Sock: LongInt;
  Addr: TInetSockAddr;
  SockIn, SockOut: Text;
  Words: TStringArray;
begin
  Result := 1;
  if ParamCount >= 1 then Address := ParamStr(1)
  else Address := GetEnvironmentVariable('ARBITER_ADDR');
  if Address = '' then Address := '127.0.0.1:4000';
  Colon := LastDelimiter(':', Address);
  Host := Copy(Address, 1, Colon - 1);
  if Host = '' then Host := '127.0.0.1';
  Sock := fpSocket(AF_INET, SOCK_STREAM, 0);
  Addr.sin_family := AF_INET;
  Addr.sin_port := htons(StrToIntDef(Copy(Address, Colon + 1, Length(Address)), 4000));
  Addr.sin_addr := StrToNetAddr(Host);
  if (Sock < 0) or (fpConnect(Sock, @Addr, SizeOf(Addr)) <> 0) then
  begin
    WriteLn(StdErr, 'c4client: cannot connect to ', Address);
    Exit;
  end;
  Sock2Text(Sock, SockIn, SockOut);
  Reset(SockIn);
  Rewrite(SockOut);
  while not EOF(SockIn) do
  begin
    ReadLn(SockIn, Line);
    Words := Trim(Line).Split(' ');
    if Length(Words) = 0 then Continue;
    if Words[0] = 'hello' then
      Write(SockOut, 'name ', Player.Name, #10)
    else if (Words[0] = 'wake') and (Length(Words) >= 4) then
      Player.Wake(StrToInt(Words[1]), StrToInt(Words[2]), Words[3] = '1')
    else if (Words[0] = 'move') and (Length(Words) >= 3) then
      Write(SockOut, Player.Move(C4ParseBoard(Words[2]), StrToInt(Words[1])), #10)
    else if (Words[0] = 'over') and (Length(Words) >= 2) then
      Player.GameOver(Words[1])
    else if Words[0] = 'bye' then
      Break;
    Flush(SockOut);
  end;
  CloseSocket(Sock);
  Result := 0;
end;

end.
