import { describe, expect, it } from 'vitest';
import { keptBody, linesOf } from '../../src/sources/adms/kept.js';
import { malformedLine } from '../../src/sources/adms/malformed.js';

/**
 * Lines kept raw (not understood) must not keep the biometric data punchgate never stores: the
 * template and photo fields of OPERLOG (`TMP=`, `Tmp=`, `Content=`) and of Security PUSH
 * tabledata (`template=`, `tmp=`, `content=`), in the shapes ADMS servers' published fixtures
 * show. Our own short stand-ins for the base64 values.
 */
const FP = 'FINGERTMP\tPIN=21\tFID=0\tSize=24\tValid=1\tTMP=TSNTUzIxAAAEUlYECAUHCc7Q+/=';
const BIO = 'VEINDATA Pin=21\tNo=1\tType=7\tTmp=QkJCQkJCQ0ND';
const PIC = 'USERPHOTO PIN=21\tFileName=21.jpg\tSize=8\tContent=/9j/4AAQSkZJRg==';
const SEC = 'templatev13 size=4 uid=5 pin=4 fingerid=6 valid=1 template=AAAABBBB resverd= endtag=';

describe('lines kept raw', () => {
  it('leave out template and photo values, and keep the rest of the line', () => {
    const body = [FP, BIO, PIC, SEC].join('\r\n');
    const kept = linesOf(body, [1, 2, 3, 4]);
    expect(kept).toEqual([
      'FINGERTMP\tPIN=21\tFID=0\tSize=24\tValid=1\tTMP=***',
      'VEINDATA Pin=21\tNo=1\tType=7\tTmp=***',
      'USERPHOTO PIN=21\tFileName=21.jpg\tSize=8\tContent=***',
      'templatev13 size=4 uid=5 pin=4 fingerid=6 valid=1 template=*** resverd= endtag=',
    ]);
    const whole = keptBody('FINGERTMP', 'a table punchgate does not read', body).body;
    for (const secret of ['TSNTUzIx', 'QkJCQkJC', '/9j/4AAQ', 'AAAABBBB']) {
      expect(whole).not.toContain(secret);
      expect(malformedLine(1, 'x', body).text).not.toContain(secret);
    }
  });

  it('leave out the fingerprints and photos of ID card records and enrolment uploads; a photo feature switch stays', () => {
    // The attendance PUSH document's layouts (V4.0 §11.6 IDCARD, §12.9.3 ENROLL_BIO uploads); our values.
    const card =
      'IDCARD PIN=2\tIDNum=110101199001010011\tName=Test\tPhoto=V0xmAH4AMgAA\tFPTemplate1=QwGIEgELUQQA\tFPTemplate2=QwGIEgEQUAAA\tNotice=';
    const enrol = 'TYPE=9\tPIN=1\tNO=0\tINDEX=0\tTMP=ZZZZYYYY\tBIOPHOTO=/9j/4BBQ';
    const secCard = 'identitycard pin=1\tPhoto=V0xmAH4A\tPhotoJPG=Y0tKqWNP\tFP_Template1=QwGIEgEL\tReserve=';
    expect(linesOf([card, enrol, 'PhotoFunOn=1,FaceFunOn=1', secCard].join('\n'), [1, 2, 3, 4])).toEqual([
      'IDCARD PIN=2\tIDNum=110101199001010011\tName=Test\tPhoto=***\tFPTemplate1=***\tFPTemplate2=***\tNotice=',
      'TYPE=9\tPIN=1\tNO=0\tINDEX=0\tTMP=***\tBIOPHOTO=***',
      'PhotoFunOn=1,FaceFunOn=1',
      'identitycard pin=1\tPhoto=***\tPhotoJPG=***\tFP_Template1=***\tReserve=',
    ]);
  });

  it('leave a punch line as it is', () => {
    const line = '1\t2026-11-01 11:34:17\t0\t1\t0\t\t\t0\t0\t';
    expect(linesOf(line, [1])).toEqual([line]);
  });
});
